-- GET /conversations: one page, newest last activity first, and the exact total of the filtered
-- conversations (`count() OVER ()`, counted before LIMIT: one pass instead of a second statement
-- repeating the filters; query-conversations-count serves a page past the end). Keyword search:
-- every term of {search} as a whole word (lower-cased, splitByNonAlpha) in the summary or in one
-- message body; the matching messages' conversations are collected by the 8-byte hash of their id
-- (messages.conversation_hash, migration 0070) rather than the id itself, ~6x fewer bytes to read.
SELECT
    conversation_id,
    summary,
    message_count,
    first_ts,
    last_ts,
    environment,
    count() OVER () AS total
FROM {{db}}.conversations FINAL
WHERE tenant_id = {tenant:String}
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND ({user_id:String} = '' OR user_id = {user_id:String})
  AND last_ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
  AND ({cluster_id:String} = '' OR conversation_id IN (
    SELECT conversation_id FROM {{db}}.cluster_assignments FINAL
    WHERE tenant_id = {tenant:String} AND run_id = {cluster_run:String} AND node_id != ''
      AND (node_id = {cluster_id:String} OR category_id = {cluster_id:String})
  ))
  AND (
    {search:String} = ''
    OR hasAllTokens(lowerUTF8(summary), tokens(lowerUTF8({search:String}), 'splitByNonAlpha'))
    OR cityHash64(conversation_id) IN (
        SELECT conversation_hash FROM {{db}}.messages
        WHERE tenant_id = {tenant:String}
          AND hasAllTokens(lowerUTF8(content), tokens(lowerUTF8({search:String}), 'splitByNonAlpha'))
    )
  )
  -- outcome (schemas/outcome.ts): negative = blended step score below the threshold or a
  -- frustration detection the agent elicited or nothing attributes elsewhere (OUTCOME_ELICITORS);
  -- positive = blended score at or above its threshold and no frustration
  AND (
    {outcome:String} = 'any'
    OR ({outcome:String} = 'negative' AND (
        conversation_id IN (SELECT conversation_id FROM {{db}}.step_scores FINAL WHERE tenant_id = {tenant:String} AND item_key = 'rollup' AND blended_score < {negative_below:Float64})
        OR conversation_id IN (SELECT conversation_id FROM {{db}}.emotion_detections FINAL WHERE tenant_id = {tenant:String} AND family = 'frustration' AND score >= {frustration_min:Float64} AND elicitor IN ('agent', 'ambiguous'))
    ))
    OR ({outcome:String} = 'positive'
        AND conversation_id IN (SELECT conversation_id FROM {{db}}.step_scores FINAL WHERE tenant_id = {tenant:String} AND item_key = 'rollup' AND blended_score >= {positive_from:Float64})
        AND conversation_id NOT IN (SELECT conversation_id FROM {{db}}.emotion_detections FINAL WHERE tenant_id = {tenant:String} AND family = 'frustration' AND score >= {frustration_min:Float64} AND elicitor IN ('agent', 'ambiguous'))
    )
  )
  -- world_state: every term (lower-cased) within the world-state search text (segment slots and carried-in durable slots)
  AND (
    empty({world_state_terms:Array(String)})
    OR conversation_id IN (
        SELECT conversation_id FROM {{db}}.world_state FINAL
        WHERE tenant_id = {tenant:String} AND item_key = 'conversation'
          AND arrayAll(t -> position(search_text, t) > 0, {world_state_terms:Array(String)})
    )
  )
ORDER BY last_ts DESC, conversation_id DESC
LIMIT {limit:UInt32} OFFSET {offset:UInt32}
