-- GET /tool-failures/:tool: the most frequent error texts of one tool with up to 3 newest examples.
-- Calls fold through FINAL (see query-tool-failures-stats.sql); every filter applies to the fold.
SELECT
    error,
    anyLast(error_type) AS error_type,
    count() AS count,
    max(ts) AS last_seen,
    arraySlice(arrayReverseSort(x -> x.3, groupArray(1000)((conversation_id, call_id, ts))), 1, 3) AS examples
FROM {{db}}.tool_calls FINAL
WHERE tenant_id = {tenant:String}
  AND success = 0
  AND tool_name = {tool:String}
  AND ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
  AND ({environment:String} = 'all' OR environment = {environment:String})
GROUP BY error
ORDER BY count DESC, last_seen DESC, error
LIMIT {limit:UInt32}
