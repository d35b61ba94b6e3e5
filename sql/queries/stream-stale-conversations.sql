-- Conversations whose stored rollup is missing or older than their newest event (a "conversation
-- changed" job was lost, e.g. the process died between insert and publish). Params: since DateTime64(3), limit UInt32.
SELECT e.tenant_id AS tenant_id, e.conversation_id AS conversation_id
FROM
(
    SELECT tenant_id, conversation_id, max(event_time) AS last_event, count() AS events
    FROM {{db}}.events
    WHERE conversation_id != '' AND inserted_at >= {since:DateTime64(3)}
    GROUP BY tenant_id, conversation_id
) AS e
LEFT JOIN
(
    SELECT tenant_id, conversation_id, last_ts, version
    FROM {{db}}.conversations FINAL
) AS c ON c.tenant_id = e.tenant_id AND c.conversation_id = e.conversation_id
WHERE c.version = 0 OR c.last_ts < e.last_event
LIMIT {limit:UInt32}
