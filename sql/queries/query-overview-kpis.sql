-- GET /overview: conversation counts of the current and previous window (by last activity) and
-- tool-failure counts of the current window (by call start), one row per block.
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
       uniqExact(tool) AS c
FROM (
    SELECT conversation_id, max(tool_name) AS tool, max(success) AS ok, min(ts) AS started_at, max(environment) AS env
    FROM {{db}}.tool_calls
    WHERE tenant_id = {tenant:String}
    GROUP BY tenant_id, conversation_id, call_id
    HAVING ok = 0
       AND started_at >= fromUnixTimestamp64Milli({current_ms:Int64}, 'UTC')
       AND ({environment:String} = 'all' OR env = {environment:String})
)
