-- GET /conversations/:id/world-state (and /replay, /snapshot): the conversation row and every
-- segment row of one conversation (a primary-key range), segments in order.
-- Params: tenant String, id String.
SELECT kind, segment_index, start_index, end_index, message_count, event_count, doc
FROM {{db}}.world_state FINAL
WHERE tenant_id = {tenant:String} AND conversation_id = {id:String}
ORDER BY segment_index
