-- GET /search (semantic and hybrid): every message of the conversations of the best segments, with
-- what numbering needs (newest version of each message by inserted_at, as the context endpoint).
SELECT conversation_id, message_id, argMax(ts, inserted_at) AS t, argMax(seq, inserted_at) AS s,
       argMax(role, inserted_at) AS role, argMax(content, inserted_at) AS content
FROM {{db}}.messages
WHERE tenant_id = {tenant:String} AND conversation_id IN {conversations:Array(String)}
GROUP BY conversation_id, message_id
