-- Keyword search of the conversation list (query-conversations-list.sql) collects the conversations
-- that have a matching message. Reading `conversation_id` (~47 bytes a row) of every match cost
-- ~100 ms for a common word at 10M events; this 8-byte hash of it, computed by the engine on insert,
-- is what the list reads instead (cityHash64; the conversations side hashes its own ids the same
-- way). MATERIALIZE COLUMN writes it into the parts stored before this migration.
ALTER TABLE {{db}}.messages {{on_cluster}} ADD COLUMN IF NOT EXISTS conversation_hash UInt64 MATERIALIZED cityHash64(conversation_id) CODEC(ZSTD(1));

ALTER TABLE {{db}}.messages {{on_cluster}} MATERIALIZE COLUMN conversation_hash;
