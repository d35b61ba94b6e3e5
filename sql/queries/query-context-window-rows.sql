-- GET /conversations/:id/context in one statement: the window's positions over narrow columns, then
-- the wide columns of those messages only (at most 2 × window + 1, found through the primary key by
-- the window's ids), newest version of each (as FINAL would keep), and the conversation's summary
-- as one more row (`idx` -1, the summary in `content`; none while the conversation has no rollup).
-- Rows come in no particular order: the caller sorts them by `idx`. One statement, not two or
-- three: on a busy engine every statement waits for its turn, and the gate lets one other
-- statement (a sink insert or background work) go between two reads.
-- The window is a scalar subquery (ids, indexes, the message count), computed once and used as a
-- constant set, so the wide read prunes by primary key. Message index is the zero-based row number
-- in (ts, seq, message_id) order; the centre defaults to the middle (floor((n-1)/2)) and is clamped
-- to the last message. The positions read narrow columns only (no FINAL: FINAL cannot filter before
-- it merges, so it decompresses every column of every granule the conversation touches); each
-- message counts once with its newest version (highest inserted_at, the table's version column).
-- A conversation without messages has an empty window and no rows.
WITH (
    SELECT (groupArray(message_id), groupArray(idx), any(total))
    FROM (
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
    )
) AS win
SELECT message_id, win.2[indexOf(win.1, message_id)] AS idx, win.3 AS total,
       role, content, content_blocks, tool_calls, tool_results, ts
FROM {{db}}.messages
WHERE tenant_id = {tenant:String} AND conversation_id = {id:String} AND message_id IN win.1
ORDER BY inserted_at DESC
LIMIT 1 BY message_id
UNION ALL
SELECT '' AS message_id, toInt64(-1) AS idx, toInt64(0) AS total,
       '' AS role, summary AS content, '' AS content_blocks, '' AS tool_calls, '' AS tool_results, toDateTime64(0, 3, 'UTC') AS ts
FROM {{db}}.conversations FINAL
WHERE tenant_id = {tenant:String} AND conversation_id = {id:String}
LIMIT 1
