-- events.attributes stored by reference: a value equal to one of the row's columns (the session id
-- and conversation_id, the event's timestamp and event_time, a tool use id and tool_call_id, …) is
-- stored as NUL and the column's code; a received value beginning with NUL gets one more NUL in
-- front (schemas/attribute-refs.ts). Rows written so carry attribute_refs = 1; rows written before
-- keep 0 and their map as received (docs/storage.md "Attributes stored by reference").
-- Adding a column with a default rewrites no part. Re-applied, both statements change nothing.
ALTER TABLE {{db}}.events {{on_cluster}} ADD COLUMN IF NOT EXISTS attribute_refs UInt8 DEFAULT 0;

-- The events with their attribute maps as received, by the rule of schemas/attribute-refs.ts.
-- A view keeps the columns it was made with: a later migration that changes the columns of events
-- makes it again (CREATE OR REPLACE, as here).
CREATE OR REPLACE VIEW {{db}}.events_received {{on_cluster}} AS
SELECT * REPLACE (
    if(attribute_refs = 0, attributes, mapApply((k, v) -> (k, multiIf(
        substring(v, 1, 1) != '\0', v,
        substring(v, 2, 1) = '\0', substring(v, 2),
        v = '\0c', conversation_id,
        v = '\0u', user_id,
        v = '\0n', toString(name),
        v = '\0t', tool_call_id,
        v = '\0o', toString(tool_name),
        v = '\0m', toString(model),
        v = '\0i', message_id,
        v = '\0s', toString(sequence),
        v = '\0e', concat(replaceOne(toString(event_time), ' ', 'T'), 'Z'),
        v)), attributes)) AS attributes
)
FROM {{db}}.events;
