-- The folded calls of a set of conversations (of any tenants), for the tool-failure rollup: one row
-- per call, the fold of its decision and result rows (min start, max of every other column; the
-- "unknown" values are the smallest). Primary-key ranges on (tenant_id, conversation_id).
-- Same fold and columns as the 0060 migration's backfill and stream-tool-rollup-rebuild.sql.
-- Params: keys Array(Tuple(String, String)) = (tenant, conversation) pairs.
SELECT
    tenant_id,
    conversation_id,
    call_id,
    tool AS tool_name,
    toUInt8(ok = 0) AS failed,
    toString(toDate(start)) AS day,
    env AS environment,
    if(effect = '', 'unknown', effect) AS effect_class,
    start AS ts,
    err AS error,
    err_type AS error_type
FROM (
    SELECT tenant_id, conversation_id, call_id, min(ts) AS start, max(tool_name) AS tool, max(success) AS ok,
           max(environment) AS env, max(effect_class) AS effect, max(error) AS err, max(error_type) AS err_type
    FROM {{db}}.tool_calls
    WHERE (tenant_id, conversation_id) IN {keys:Array(Tuple(String, String))}
    GROUP BY tenant_id, conversation_id, call_id
)
