-- The latest outcome of every analyzer for a set of conversations (what each wrote, for tombstones,
-- and how often it failed, for retries). Params: keys Array(Tuple(String, String)).
SELECT tenant_id, conversation_id, analyzer, analyzer_version, outcome, attempts, item_keys
FROM {{db}}.analysis_state FINAL
WHERE (tenant_id, conversation_id) IN {keys:Array(Tuple(String, String))}
SETTINGS max_threads = 1
