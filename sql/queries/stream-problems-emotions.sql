-- Negative emotion detections of a tenant (problems engine signals); self-blame is not a signal.
SELECT conversation_id, item_key, message_index, message_ts, family, signal, score, risk_score, elicitor, cause, quotes, user_id
FROM {{db}}.emotion_detections FINAL
WHERE tenant_id = {tenant:String} AND family != 'satisfaction' AND score >= {min_score:Float32} AND elicitor != 'user'
  AND ({all:UInt8} = 1 OR conversation_id IN {convs:Array(String)})
