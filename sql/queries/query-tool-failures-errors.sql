-- GET /tool-failures/:tool: the most frequent error texts of one tool with up to 3 newest examples.
-- Reads the tool's failed calls of the window from tool_call_facts (one row per folded call, written
-- by the stream role; migration 0060): the key (tenant_id, tool_name, failed, day, …) makes that one
-- primary-key range, so the read follows the tool's failures in the window, not the tenant's calls.
-- Window: whole UTC days from the day of {since_ms} (see query-tool-failures-stats.sql).
SELECT
    error,
    anyLast(error_type) AS error_type,
    count() AS count,
    max(ts) AS last_seen,
    arraySlice(arrayReverseSort(x -> x.3, groupArray(1000)((conversation_id, call_id, ts))), 1, 3) AS examples
FROM {{db}}.tool_call_facts FINAL
WHERE tenant_id = {tenant:String}
  AND tool_name = {tool:String}
  AND failed = 1
  AND day >= toDate(fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC'))
  AND ({environment:String} = 'all' OR environment = {environment:String})
GROUP BY error
ORDER BY count DESC, last_seen DESC, error
LIMIT {limit:UInt32}
