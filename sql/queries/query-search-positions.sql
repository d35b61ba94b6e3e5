-- GET /search, step 2: the zero-based index (row number in (ts, seq, message_id) order, as the
-- context endpoint counts) of the hit messages, computed over the hits' conversations only and
-- over narrow columns: each message counts once with its newest version (highest inserted_at).
SELECT conversation_id, message_id, idx
FROM (
    SELECT
        conversation_id,
        message_id,
        toInt64(row_number() OVER (PARTITION BY conversation_id ORDER BY t, s, message_id)) - 1 AS idx
    FROM (
        SELECT conversation_id, message_id, argMax(ts, inserted_at) AS t, argMax(seq, inserted_at) AS s
        FROM {{db}}.messages
        WHERE tenant_id = {tenant:String} AND conversation_id IN {conversations:Array(String)}
        GROUP BY conversation_id, message_id
    )
)
WHERE message_id IN {ids:Array(String)}
