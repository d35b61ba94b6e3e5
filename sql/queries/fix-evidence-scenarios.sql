-- Fix scoping: the first user message of each evidence conversation (the replay scenario).
SELECT conversation_id, argMin(content, (ts, seq)) AS scenario
FROM {{db}}.messages
WHERE tenant_id = {tenant:String} AND conversation_id IN {ids:Array(String)} AND role = 'user' AND content != ''
GROUP BY conversation_id
