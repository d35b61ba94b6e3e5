-- Scored segments that failed (final progress below 0.5) and every conversation's blended score.
SELECT conversation_id, item_key, kind, score, failure_type, blended_score, scored_at, user_id,
       if(kind = 'segment' AND failure_type != '', doc, '') AS doc
FROM {{db}}.step_scores FINAL
WHERE tenant_id = {tenant:String}
  AND ({all:UInt8} = 1 OR conversation_id IN {convs:Array(String)})
