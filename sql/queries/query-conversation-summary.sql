-- Summary of one conversation ('' until the trace-summary analysis writes one).
SELECT summary
FROM {{db}}.conversations FINAL
WHERE tenant_id = {tenant:String} AND conversation_id = {id:String}
LIMIT 1
