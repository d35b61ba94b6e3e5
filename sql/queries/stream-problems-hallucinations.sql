-- Claims contradicted by the record (problems engine signals).
SELECT conversation_id, item_key, message_index, message_ts, claim_type, claim, evidence, user_id
FROM {{db}}.hallucination_findings FINAL
WHERE tenant_id = {tenant:String} AND verdict = 'contradicted'
  AND ({all:UInt8} = 1 OR conversation_id IN {convs:Array(String)})
