-- GET /emotions: one page of detections, newest message first. Read with FINAL: the analyzer
-- replaces a conversation's rows on every run and tombstones (is_deleted = 1) the detections a new
-- run no longer produces, so FINAL shows exactly the latest run; the filters on other columns apply
-- after that merge. The cause reference ({kind, message_index, tool_use_id?} as JSON text, '' for
-- none) is taken apart here; a text without a kind answers as no cause. Scores are Float32: the
-- bound is compared as Float32 too, so min_score=0.7 keeps a stored 0.7.
SELECT
    conversation_id,
    message_index,
    message_ts,
    family,
    signal,
    score,
    risk_score,
    trajectory,
    elicitor,
    JSONExtractString(cause, 'kind') AS cause_kind,
    JSONExtract(cause, 'message_index', 'Nullable(Int64)') AS cause_message_index,
    JSONHas(cause, 'tool_use_id') AS cause_has_tool,
    JSONExtractString(cause, 'tool_use_id') AS cause_tool_use_id,
    quotes
FROM {{db}}.emotion_detections FINAL
WHERE tenant_id = {tenant:String}
  AND ({conversation_id:String} = '' OR conversation_id = {conversation_id:String})
  AND ({family:String} = '' OR family = {family:String})
  AND ({signal:String} = '' OR signal = {signal:String})
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND message_ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
  AND score >= toFloat32({min_score:Float64})
ORDER BY message_ts DESC, conversation_id DESC, message_index DESC, item_key
LIMIT {limit:UInt32} OFFSET {offset:UInt32}
