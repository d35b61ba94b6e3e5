-- GET /hallucinations: one page of findings (contradicted and verified claims), newest message
-- first, read with FINAL (latest analyzer run only; tombstoned findings drop out; filters apply
-- after the merge). The evidence ({message_index, tool_use_id, quote} as JSON text) is taken apart
-- here.
SELECT
    conversation_id,
    message_index,
    message_ts,
    claim_type,
    claim,
    verdict,
    JSONExtract(evidence, 'message_index', 'Nullable(Int64)') AS evidence_message_index,
    JSONExtract(evidence, 'tool_use_id', 'Nullable(String)') AS evidence_tool_use_id,
    JSONExtractString(evidence, 'quote') AS evidence_quote
FROM {{db}}.hallucination_findings FINAL
WHERE tenant_id = {tenant:String}
  AND ({conversation_id:String} = '' OR conversation_id = {conversation_id:String})
  AND ({verdict:String} = '' OR verdict = {verdict:String})
  AND ({claim_type:String} = '' OR claim_type = {claim_type:String})
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND message_ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
ORDER BY message_ts DESC, conversation_id DESC, message_index DESC, item_key
LIMIT {limit:UInt32} OFFSET {offset:UInt32}
