-- The groups of the tool-failure rollup marked as changed and not yet recomputed, with the version
-- of each mark (the pass tombstones a mark at this version once its group is recomputed).
SELECT tenant_id, tool_name, toString(day) AS day, version
FROM {{db}}.tool_rollup_dirty FINAL
WHERE is_deleted = 0
ORDER BY tenant_id, tool_name, day
LIMIT {limit:UInt32}
