-- GET /overview recent_activity: the 10 conversations with the latest activity in the last 7 days.
SELECT conversation_id, summary, last_ts
FROM {{db}}.conversations FINAL
WHERE tenant_id = {tenant:String}
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND last_ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
ORDER BY last_ts DESC, conversation_id DESC
LIMIT {limit:UInt32}
