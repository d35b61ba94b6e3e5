-- GET /overview `timeline`: per UTC day, conversations and frustrated conversations by the day of
-- their last activity (the KPI window: last activity in the last N×24 hours, so the days sum to
-- `conversations.total` and `frustrations.frustrated`), and failed tool calls by the day they
-- started (whole UTC days of the tool-failure window, so the days sum to `tool_failures.total`).
SELECT 'conversations' AS block, toString(toDate(last_ts, 'UTC')) AS d, toUInt64(count()) AS n
FROM {{db}}.conversations FINAL
WHERE tenant_id = {tenant:String}
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND last_ts >= fromUnixTimestamp64Milli({current_ms:Int64}, 'UTC')
GROUP BY d
UNION ALL
SELECT 'frustrated' AS block, toString(toDate(last_ts, 'UTC')) AS d, toUInt64(countIf(frustrated = 1)) AS n
FROM {{db}}.conversation_signals FINAL
WHERE tenant_id = {tenant:String}
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND last_ts >= fromUnixTimestamp64Milli({current_ms:Int64}, 'UTC')
  AND user_messages > 0
GROUP BY d
UNION ALL
SELECT 'tool_failures' AS block, toString(day) AS d, toUInt64(sum(failures)) AS n
FROM {{db}}.tool_failures_daily FINAL
WHERE tenant_id = {tenant:String}
  AND day >= toDate(fromUnixTimestamp64Milli({tool_since_ms:Int64}, 'UTC'))
  AND ({environment:String} = 'all' OR environment = {environment:String})
GROUP BY d
