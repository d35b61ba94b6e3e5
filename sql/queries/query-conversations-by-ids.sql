-- GET /conversations in hybrid mode: the rows of one page of the ranked candidate pool.
SELECT conversation_id, summary, message_count, first_ts, last_ts, environment
FROM {{db}}.conversations FINAL
WHERE tenant_id = {tenant:String} AND conversation_id IN {ids:Array(String)}
