-- GET /conversations/:id/context, step 1: the message ids of the window [center - w, center + w]
-- with their index and the conversation's message count. Message index is the zero-based row
-- number in (ts, seq, message_id) order; the centre defaults to the middle (floor((n-1)/2)) and is
-- clamped to the last message. Reads narrow columns only (no FINAL: FINAL cannot filter before it
-- merges, so it decompresses every column of every granule the conversation touches); each message
-- counts once with its newest version (highest inserted_at, the table's version column).
SELECT message_id, idx, total
FROM (
    SELECT
        message_id,
        toInt64(row_number() OVER (ORDER BY t, s, message_id)) - 1 AS idx,
        toInt64(count() OVER ()) AS total
    FROM (
        SELECT message_id, argMax(ts, inserted_at) AS t, argMax(seq, inserted_at) AS s
        FROM {{db}}.messages
        WHERE tenant_id = {tenant:String} AND conversation_id = {id:String}
        GROUP BY message_id
    )
)
WHERE abs(idx - if({has_index:UInt8} = 1, least({msg_index:Int64}, total - 1), intDiv(total - 1, 2))) <= {window:Int64}
ORDER BY idx
