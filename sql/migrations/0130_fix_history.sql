-- Fix pipeline: every status transition of a fix (the live fix object is kept in the JetStream KV
-- bucket th_fixes; this table is its append-only history). One row per transition, keyed by the
-- KV revision that wrote it, so a retried insert of the same transition converges.

CREATE TABLE IF NOT EXISTS {{db}}.fix_history {{on_cluster}}
(
    tenant_id     LowCardinality(String),
    fix_id        String,
    revision      UInt64,
    at            DateTime64(3, 'UTC'),
    problem_id    String,
    short_ref     String,
    from_status   LowCardinality(String),
    to_status     LowCardinality(String),
    trigger       LowCardinality(String),
    reason        String,
    actor         String,
    fix           String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, fix_id, revision);
