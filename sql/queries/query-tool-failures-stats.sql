-- GET /tool-failures and /tool-failures/:tool: calls and failures by tool, by effect class, by UTC
-- day and in total, in one pass (GROUPING SETS). A call is the fold of its decision and result rows
-- (max() per column, min() of ts = start); failure means success = 0 (-1 is "no result yet").
SELECT
    multiIf(grouping(tool) = 0, 'tool', grouping(effect) = 0, 'effect', grouping(day) = 0, 'day', 'total') AS dim,
    tool,
    effect,
    toString(day) AS day,
    count() AS calls,
    countIf(ok = 0) AS failures,
    uniqExactIf(conversation_id, ok = 0) AS conversations,
    uniqExactIf(tool, ok = 0) AS tools,
    maxIf(started_at, ok = 0) AS last_failure_at,
    topKIf(3)(error, ok = 0 AND error != '') AS example_errors
FROM (
    SELECT
        conversation_id,
        max(tool_name) AS tool,
        if(max(effect_class) = '', 'unknown', max(effect_class)) AS effect,
        max(success) AS ok,
        max(error) AS error,
        min(ts) AS started_at,
        toDate(started_at) AS day,
        max(environment) AS env
    FROM {{db}}.tool_calls
    WHERE tenant_id = {tenant:String}
    GROUP BY tenant_id, conversation_id, call_id
    HAVING started_at >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
       AND ({environment:String} = 'all' OR env = {environment:String})
       AND ({tool:String} = '' OR tool = {tool:String})
)
GROUP BY GROUPING SETS ((tool), (effect), (day), ())
