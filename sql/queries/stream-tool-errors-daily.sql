-- Recomputes the tool_errors_daily rows of a set of (tenant, UTC day) pairs from tool_call_facts,
-- like stream-tool-failures-daily.sql: one row per (tool, environment, error text) of the day's
-- failed calls with its count, last start, type and 3 newest calls; a row without failed calls any
-- more is tombstoned. Params: days Array(Tuple(String, Date)), version UInt64.
INSERT INTO {{db}}.tool_errors_daily (tenant_id, tool_name, day, environment, error, version, is_deleted, error_type, failures, last_seen, examples)
WITH fresh AS (
    SELECT
        tenant_id, tool_name, day, environment, error,
        argMax(error_type, ts) AS error_type,
        count() AS failures,
        max(ts) AS last_seen,
        arraySlice(arrayReverseSort(x -> (x.3, x.1, x.2), groupArray((conversation_id, call_id, ts))), 1, 3) AS examples
    FROM {{db}}.tool_call_facts FINAL
    WHERE (tenant_id, day) IN {days:Array(Tuple(String, Date))} AND failed = 1
    GROUP BY tenant_id, tool_name, day, environment, error
)
SELECT tenant_id, tool_name, day, environment, error, {version:UInt64}, 0, error_type, failures, last_seen, examples
FROM fresh
UNION ALL
SELECT tenant_id, tool_name, day, environment, error, {version:UInt64}, 1, error_type, failures, last_seen, examples
FROM {{db}}.tool_errors_daily FINAL
WHERE (tenant_id, day) IN {days:Array(Tuple(String, Date))}
  AND (tenant_id, tool_name, day, environment, error) NOT IN (SELECT tenant_id, tool_name, day, environment, error FROM fresh)
