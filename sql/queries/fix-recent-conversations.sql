-- prompts_ab auto-generation: the most recent conversations with messages in a look-back window.
SELECT conversation_id
FROM {{db}}.conversations FINAL
WHERE tenant_id = {tenant:String} AND message_count > 0 AND last_ts >= {since:DateTime64(3, 'UTC')}
ORDER BY last_ts DESC, conversation_id
LIMIT {limit:UInt32}
