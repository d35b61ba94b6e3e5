-- The trigram bloom filter on messages.content served `LIKE '%…%'`, which nothing reads with:
-- keyword search uses the text index idx_content_words (migration 0050), and the filter skipped
-- almost no granules on real vocabularies (docs/data-api.md "Keyword search"). It was built for
-- every inserted block and again at every merge, about a quarter of a messages insert's CPU
-- (docs/storage.md "Indexes kept and dropped"). Dropping an index removes its files; no row is
-- rewritten. Re-applied without the index, it changes nothing.
ALTER TABLE {{db}}.messages {{on_cluster}} DROP INDEX IF EXISTS idx_content;
