-- Laziness detections that count alone (confidence >= 0.5, not truncated data).
SELECT conversation_id, item_key, message_index, message_ts, pattern, confidence, quote
FROM {{db}}.laziness_detections FINAL
WHERE tenant_id = {tenant:String} AND confidence >= 0.5 AND truncated_data = 0
  AND ({all:UInt8} = 1 OR conversation_id IN {convs:Array(String)})
