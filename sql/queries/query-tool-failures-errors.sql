-- GET /tool-failures/:tool: the most frequent error texts of one tool with up to 3 newest examples.
SELECT
    error,
    anyLast(error_type) AS error_type,
    count() AS count,
    max(started_at) AS last_seen,
    arraySlice(arrayReverseSort(x -> x.3, groupArray(1000)((conversation_id, call_id, started_at))), 1, 3) AS examples
FROM (
    SELECT
        conversation_id,
        call_id,
        max(tool_name) AS tool,
        max(success) AS ok,
        max(error) AS error,
        max(error_type) AS error_type,
        min(ts) AS started_at,
        max(environment) AS env
    FROM {{db}}.tool_calls
    WHERE tenant_id = {tenant:String}
    GROUP BY tenant_id, conversation_id, call_id
    HAVING ok = 0
       AND tool = {tool:String}
       AND started_at >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
       AND ({environment:String} = 'all' OR env = {environment:String})
)
GROUP BY error
ORDER BY count DESC, last_seen DESC, error
LIMIT {limit:UInt32}
