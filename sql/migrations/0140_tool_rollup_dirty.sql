-- The (tenant, tool, UTC day) groups of the tool-failure rollup whose facts changed since their
-- daily rows were last recomputed. The analyzer marks a group after writing its facts; a paced pass
-- (stream/analyze/tool-rollup-flusher.ts) recomputes the marked groups, then tombstones each mark
-- at the version it read, so a mark written meanwhile (a higher version) stays for the next pass.
-- A mark left by a crash is recomputed by the next pass of any replica.
CREATE TABLE IF NOT EXISTS {{db}}.tool_rollup_dirty {{on_cluster}}
(
    tenant_id   LowCardinality(String),
    tool_name   String,
    day         Date,
    version     UInt64,
    is_deleted  UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (tenant_id, tool_name, day);
