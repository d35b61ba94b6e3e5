-- GET /overview: conversation counts of the current and previous window (by last activity) and
-- tool-failure counts of the current window (by call start), one row per block. Calls fold through
-- FINAL (see query-tool-failures-stats.sql): success and ts are the folded values.
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
       count() AS a,
       uniqExact(conversation_id) AS b,
       uniqExact(tool_name) AS c
FROM {{db}}.tool_calls FINAL
WHERE tenant_id = {tenant:String}
  AND success = 0
  AND ts >= fromUnixTimestamp64Milli({current_ms:Int64}, 'UTC')
  AND ({environment:String} = 'all' OR environment = {environment:String})
