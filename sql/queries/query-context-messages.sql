-- GET /conversations/:id/context, step 2: the wide columns of the window's messages only (at most
-- 11, found through the primary key), newest version of each (as FINAL would keep).
SELECT message_id, role, content, content_blocks, tool_calls, tool_results, ts
FROM {{db}}.messages
WHERE tenant_id = {tenant:String} AND conversation_id = {id:String}
  AND message_id IN {ids:Array(String)}
ORDER BY inserted_at DESC
LIMIT 1 BY message_id
