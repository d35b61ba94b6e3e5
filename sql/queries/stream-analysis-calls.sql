-- Tool calls recorded by telemetry (hooks, OTLP logs and spans, tool_call events) for a set of
-- conversations: one row per call id, the fold of its decision and result rows (min start, max of
-- every other column; the "unknown" values are the smallest). Calls in message blocks are paired
-- from the messages themselves. Params: keys Array(Tuple(String, String)).
SELECT tenant_id, conversation_id, call_id, max(tool_name) AS tool_name, max(input) AS input, max(command) AS command,
       toUnixTimestamp64Milli(min(ts)) AS ts_ms, max(success) AS success, max(error) AS error, max(error_type) AS error_type, max(decision) AS decision
FROM {{db}}.tool_calls
WHERE (tenant_id, conversation_id) IN {keys:Array(Tuple(String, String))}
GROUP BY tenant_id, conversation_id, call_id
SETTINGS max_threads = 1
