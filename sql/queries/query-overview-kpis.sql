-- GET /overview: conversation counts of the current and previous window (by last activity, the last
-- N×24 hours) and tool-failure counts of the tool-failure window (whole UTC days from the day of
-- {tool_since_ms}, by call start), one row per block. Tool failures read the daily rollup exactly as
-- GET /tool-failures does (query-tool-failures-stats.sql), so the two endpoints agree. Frustrations:
-- the per-conversation signals of the conversations of the current window (the same last_ts window
-- as the conversation count) with at least one user message: a = analyzed, b = frustrated,
-- c = at risk (risk >= 0.5 and not frustrated, as the signals analysis sets the flag).
SELECT 'conversations' AS block,
       countIf(last_ts >= fromUnixTimestamp64Milli({current_ms:Int64}, 'UTC')) AS a,
       countIf(last_ts < fromUnixTimestamp64Milli({current_ms:Int64}, 'UTC')) AS b,
       toUInt64(0) AS c
FROM {{db}}.conversations FINAL
WHERE tenant_id = {tenant:String}
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND last_ts >= fromUnixTimestamp64Milli({previous_ms:Int64}, 'UTC')
UNION ALL
SELECT 'tool_failures' AS block,
       sum(failures) AS a,
       uniqExactMerge(failed_conversations) AS b,
       uniqExactIf(tool_name, failures > 0) AS c
FROM {{db}}.tool_failures_daily FINAL
WHERE tenant_id = {tenant:String}
  AND day >= toDate(fromUnixTimestamp64Milli({tool_since_ms:Int64}, 'UTC'))
  AND ({environment:String} = 'all' OR environment = {environment:String})
UNION ALL
SELECT 'frustrations' AS block,
       count() AS a,
       countIf(frustrated = 1) AS b,
       countIf(at_risk = 1) AS c
FROM {{db}}.conversation_signals FINAL
WHERE tenant_id = {tenant:String}
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND last_ts >= fromUnixTimestamp64Milli({current_ms:Int64}, 'UTC')
  AND user_messages > 0
