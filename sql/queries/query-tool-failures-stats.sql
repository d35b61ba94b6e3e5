-- GET /tool-failures and /tool-failures/:tool: calls and failures by tool, by effect class, by UTC
-- day and in total, in one pass (GROUPING SETS). A call is the fold of its decision and result rows
-- (max() per column, min() of ts = start); failure means success = 0 (-1 is "no result yet").
-- The fold is the table's own: FINAL merges each key's rows with the columns' functions (min/max),
-- and the WHERE conditions on non-key columns apply to the folded call (ClickHouse does not move
-- them before FINAL), so a call that started before the window is out even if its result is in it.
-- FINAL streams the merge over the sorted parts, 2-3x cheaper than a hash GROUP BY of every call.
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
        tool_name AS tool,
        if(effect_class = '', 'unknown', effect_class) AS effect,
        success AS ok,
        error,
        ts AS started_at,
        toDate(started_at) AS day
    FROM {{db}}.tool_calls FINAL
    WHERE tenant_id = {tenant:String}
      AND ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
      AND ({environment:String} = 'all' OR environment = {environment:String})
      AND ({tool:String} = '' OR tool_name = {tool:String})
)
GROUP BY GROUPING SETS ((tool), (effect), (day), ())
