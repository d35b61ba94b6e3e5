-- Failed tool calls of a tenant with their failure category (problems engine signals).
SELECT c.conversation_id AS conversation_id, c.item_key AS item_key, c.tool_name AS tool_name,
       c.message_index AS message_index, c.result_index AS result_index, c.ts AS ts, c.error AS error,
       c.category_id AS category_id, c.family AS family, c.user_id AS user_id,
       cat.label AS label, cat.likely_cause AS likely_cause
FROM {{db}}.conversation_tool_calls AS c FINAL
LEFT JOIN
(
    SELECT category_id, any(label) AS label, any(likely_cause) AS likely_cause
    FROM {{db}}.tool_failure_categories
    WHERE tenant_id = {tenant:String}
    GROUP BY category_id
) AS cat ON cat.category_id = c.category_id
WHERE c.tenant_id = {tenant:String} AND c.success = 0
  AND ({all:UInt8} = 1 OR c.conversation_id IN {convs:Array(String)})
