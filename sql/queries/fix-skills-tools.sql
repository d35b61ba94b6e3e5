-- skills_gen: the tools successful conversations of a cluster used, by how many used them.
SELECT tool_name, uniqExact(conversation_id) AS conversations
FROM
(
    SELECT conversation_id, item_key, argMax(tool_name, version) AS tool_name, argMax(success, version) AS success, argMax(is_deleted, version) AS is_deleted
    FROM {{db}}.conversation_tool_calls
    WHERE tenant_id = {tenant:String} AND conversation_id IN {ids:Array(String)}
    GROUP BY conversation_id, item_key
)
WHERE success = 1 AND is_deleted = 0 AND tool_name != ''
GROUP BY tool_name
ORDER BY conversations DESC, tool_name
LIMIT 8
