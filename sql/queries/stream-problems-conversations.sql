-- Conversations of a tenant (all, or the listed ones) with their size, user and segments (message ranges).
SELECT c.conversation_id AS conversation_id, c.message_count AS message_count, c.user_id AS user_id, c.last_ts AS last_ts,
       s.ids AS segment_ids, s.starts AS segment_starts
FROM {{db}}.conversations AS c FINAL
LEFT JOIN
(
    SELECT conversation_id, groupArray(item_key) AS ids, groupArray(start_index) AS starts
    FROM {{db}}.conversation_segments FINAL
    WHERE tenant_id = {tenant:String} AND ({all:UInt8} = 1 OR conversation_id IN {convs:Array(String)})
    GROUP BY conversation_id
) AS s ON s.conversation_id = c.conversation_id
WHERE c.tenant_id = {tenant:String} AND ({all:UInt8} = 1 OR c.conversation_id IN {convs:Array(String)})
