-- GET /tool-failures/:tool: the most frequent error texts of one tool with up to 3 newest examples,
-- from the per-day error rollup the stream role keeps (tool_errors_daily, migration 0060): one
-- primary-key range (tenant, tool, days) of ≤ days × environments × distinct error texts rows.
-- Exact: counts sum and last_seen is the max over the window's days; each day holds its 3 newest
-- failed calls per text, so the window's 3 newest are among them.
-- Window: whole UTC days from the day of {since_ms} (see query-tool-failures-stats.sql).
SELECT
    error,
    argMax(day_type, day_last) AS error_type,
    sum(day_failures) AS count,
    max(day_last) AS last_seen,
    arraySlice(arrayReverseSort(x -> (x.3, x.1, x.2), arrayFlatten(groupArray(day_examples))), 1, 3) AS examples
FROM (
    SELECT error, error_type AS day_type, failures AS day_failures, last_seen AS day_last, examples AS day_examples
    FROM {{db}}.tool_errors_daily FINAL
    WHERE tenant_id = {tenant:String}
      AND tool_name = {tool:String}
      AND day >= toDate(fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC'))
      AND ({environment:String} = 'all' OR environment = {environment:String})
)
GROUP BY error
ORDER BY count DESC, last_seen DESC, error
LIMIT {limit:UInt32}
