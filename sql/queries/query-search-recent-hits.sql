-- GET /search (keyword mode, sort=recent), step 2: the newest version of each candidate message
-- (primary-key reads of at most {candidates} messages), kept when that version still matches
-- every term and filter; score and snippet as in query-search-messages.sql. Newest first.
SELECT
    conversation_id, message_id, role, ts,
    arrayCount(t -> has(tokens(lowerUTF8({q:String}), 'splitByNonAlpha'), t), tokens(lowerUTF8(content), 'splitByNonAlpha')) AS score,
    arrayMin(arrayFilter(p -> p > 0,
        arrayMap(t -> toInt64(positionCaseInsensitiveUTF8(content, t)), tokens(lowerUTF8({q:String}), 'splitByNonAlpha')))) AS first_pos,
    greatest(toInt64(1), first_pos - 80) AS snip_from,
    substringUTF8(content, snip_from, 200) AS snippet,
    snip_from > 1 AS cut_start,
    snip_from + 200 <= lengthUTF8(content) AS cut_end
FROM (
    SELECT conversation_id, message_id, role, ts, content, user_id, environment
    FROM {{db}}.messages
    WHERE tenant_id = {tenant:String}
      AND conversation_id IN {conversations:Array(String)}
      AND (conversation_id, message_id) IN {keys:Array(Tuple(String, String))}
    ORDER BY inserted_at DESC
    LIMIT 1 BY conversation_id, message_id
)
WHERE hasAll(tokens(lowerUTF8(content), 'splitByNonAlpha'), tokens(lowerUTF8({q:String}), 'splitByNonAlpha'))
  AND ({user_id:String} = '' OR user_id = {user_id:String})
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
ORDER BY ts DESC, conversation_id, message_id
LIMIT {limit:UInt32}
