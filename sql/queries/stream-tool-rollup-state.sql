-- What the tool-failure rollup last wrote for the calls of a set of conversations (same columns as
-- stream-tool-calls-fold.sql). Params: keys Array(Tuple(String, String)).
SELECT
    tenant_id,
    conversation_id,
    call_id,
    tool_name,
    failed,
    toString(day) AS day,
    environment,
    effect_class,
    ts,
    error,
    error_type,
    category_id
FROM {{db}}.tool_call_rollup_state FINAL
WHERE (tenant_id, conversation_id) IN {keys:Array(Tuple(String, String))}
SETTINGS max_threads = 1
