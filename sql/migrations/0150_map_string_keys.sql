-- The raw attribute maps of events and spans key by plain String. Nothing reads them by key in a
-- grouping or a filter (they are the telemetry as sent), so a LowCardinality dictionary of keys bought
-- nothing, and building it cost about a quarter of an `events` insert (docs/storage.md "Attribute maps").
-- A type change is a mutation: existing parts are rewritten in the background and read as the new type
-- meanwhile. Re-applied on the new type, it changes nothing.
ALTER TABLE {{db}}.events {{on_cluster}} MODIFY COLUMN attributes Map(String, String) CODEC(ZSTD(3)), MODIFY COLUMN resource Map(String, String) CODEC(ZSTD(3));

ALTER TABLE {{db}}.spans {{on_cluster}} MODIFY COLUMN attributes Map(String, String) CODEC(ZSTD(3)), MODIFY COLUMN resource Map(String, String) CODEC(ZSTD(3));
