-- Fix scoping and proposing: failed tool calls of the evidence conversations with their
-- category's action hint (newest row of each call, as FINAL would keep).
SELECT c.conversation_id AS conversation_id, c.tool_name AS tool_name, any(cat.action_hint) AS action_hint, count() AS failures
FROM
(
    SELECT conversation_id, item_key, argMax(tool_name, version) AS tool_name, argMax(success, version) AS success,
           argMax(category_id, version) AS category_id, argMax(is_deleted, version) AS is_deleted
    FROM {{db}}.conversation_tool_calls
    WHERE tenant_id = {tenant:String} AND conversation_id IN {ids:Array(String)}
    GROUP BY conversation_id, item_key
) AS c
LEFT JOIN
(
    SELECT category_id, any(action_hint) AS action_hint
    FROM {{db}}.tool_failure_categories
    WHERE tenant_id = {tenant:String}
    GROUP BY category_id
) AS cat ON cat.category_id = c.category_id
WHERE c.success = 0 AND c.is_deleted = 0
GROUP BY conversation_id, tool_name
