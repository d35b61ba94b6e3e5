-- Recomputes the tool_errors_daily rows of a set of (tenant, tool, UTC day) groups from tool_call_facts,
-- like stream-tool-failures-daily.sql (one read of the facts, joined with the groups' stored rows): one
-- row per (tool, environment, error text) of the day's failed calls with its count, last start, type
-- and 3 newest calls; a stored row without failed calls any more is tombstoned. Params: as
-- stream-tool-failures-daily.sql.
INSERT INTO {{db}}.tool_errors_daily (tenant_id, tool_name, day, environment, error, version, is_deleted, error_type, failures, last_seen, examples)
SELECT tenant_id, tool_name, day, environment, error, {version:UInt64}, 1 - f.present, f.error_type, f.failures, f.last_seen, f.examples
FROM
(
    SELECT
        tenant_id, tool_name, day, environment, error,
        toUInt8(1) AS present,
        argMax(error_type, ts) AS error_type,
        count() AS failures,
        max(ts) AS last_seen,
        arraySlice(arrayReverseSort(x -> (x.3, x.1, x.2), groupArray((conversation_id, call_id, ts))), 1, 3) AS examples
    FROM {{db}}.tool_call_facts FINAL
    WHERE (tenant_id, tool_name, day) IN {groups:Array(Tuple(String, String, Date))}
      AND tenant_id IN {tenants:Array(String)} AND tool_name IN {tools:Array(String)} AND day IN {days:Array(Date)} AND failed = 1
    GROUP BY tenant_id, tool_name, day, environment, error
) AS f
FULL OUTER JOIN
(
    SELECT tenant_id, tool_name, day, environment, error
    FROM {{db}}.tool_errors_daily FINAL
    WHERE (tenant_id, tool_name, day) IN {groups:Array(Tuple(String, String, Date))}
      AND tenant_id IN {tenants:Array(String)} AND tool_name IN {tools:Array(String)} AND day IN {days:Array(Date)}
) AS d USING (tenant_id, tool_name, day, environment, error)
SETTINGS join_use_nulls = 0
