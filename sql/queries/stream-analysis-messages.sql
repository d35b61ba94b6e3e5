-- The messages of a set of conversations (of any tenants), in conversation order (the order that
-- gives every message its index: ts, then seq, then message id), for the analysis snapshot. Tool
-- blocks come from the capped tool_calls / tool_results columns, not the full content_blocks.
-- Params: keys Array(Tuple(String, String)) = (tenant, conversation) pairs.
SELECT tenant_id, conversation_id, message_id, role, content, tool_calls, tool_results, toUnixTimestamp64Milli(ts) AS ts_ms, thread_id
FROM {{db}}.messages FINAL
WHERE (tenant_id, conversation_id) IN {keys:Array(Tuple(String, String))}
ORDER BY tenant_id, conversation_id, ts, seq, message_id
SETTINGS max_threads = 1
