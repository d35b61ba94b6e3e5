-- Conversations whose analyses (or the conversation itself, or its segments) were written with a
-- version above the given marks: what an incremental problems run re-reads.
SELECT DISTINCT conversation_id FROM
(
    SELECT conversation_id FROM {{db}}.emotion_detections WHERE tenant_id = {tenant:String} AND version > {emotions:UInt64}
    UNION ALL SELECT conversation_id FROM {{db}}.conversation_tool_calls WHERE tenant_id = {tenant:String} AND version > {calls:UInt64}
    UNION ALL SELECT conversation_id FROM {{db}}.laziness_detections WHERE tenant_id = {tenant:String} AND version > {laziness:UInt64}
    UNION ALL SELECT conversation_id FROM {{db}}.hallucination_findings WHERE tenant_id = {tenant:String} AND version > {hallucinations:UInt64}
    UNION ALL SELECT conversation_id FROM {{db}}.step_scores WHERE tenant_id = {tenant:String} AND version > {steps:UInt64}
    UNION ALL SELECT conversation_id FROM {{db}}.conversations WHERE tenant_id = {tenant:String} AND version > {conversations:UInt64}
    UNION ALL SELECT conversation_id FROM {{db}}.conversation_segments WHERE tenant_id = {tenant:String} AND version > {segments:UInt64}
)
