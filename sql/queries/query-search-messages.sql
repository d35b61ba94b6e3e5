-- GET /search (keyword mode), step 1: messages containing every query term as a whole word (text
-- index on lowerUTF8(content)), best score first. Score: occurrences of query terms among the
-- message's words. Step 2 (query-search-positions.sql) adds each hit's index in its conversation.
SELECT
    conversation_id, message_id, role, ts,
    arrayCount(t -> has(tokens(lowerUTF8({q:String}), 'splitByNonAlpha'), t), tokens(lowerUTF8(content), 'splitByNonAlpha')) AS score,
    arrayMin(arrayFilter(p -> p > 0,
        arrayMap(t -> toInt64(positionCaseInsensitiveUTF8(content, t)), tokens(lowerUTF8({q:String}), 'splitByNonAlpha')))) AS first_pos,
    greatest(toInt64(1), first_pos - 80) AS snip_from,
    substringUTF8(content, snip_from, 200) AS snippet,
    snip_from > 1 AS cut_start,
    snip_from + 200 <= lengthUTF8(content) AS cut_end
FROM {{db}}.messages FINAL
WHERE tenant_id = {tenant:String}
  AND hasAllTokens(lowerUTF8(content), tokens(lowerUTF8({q:String}), 'splitByNonAlpha'))
  AND ({conversation_id:String} = '' OR conversation_id = {conversation_id:String})
  AND ({user_id:String} = '' OR user_id = {user_id:String})
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
ORDER BY score DESC, ts DESC, conversation_id, message_id
LIMIT {limit:UInt32}
