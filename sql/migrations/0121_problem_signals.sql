-- Signal store of the problems engine (docs/analyses.md "Problems", Incremental runs). One row per
-- conversation of a tenant: the negative signals the engine extracted from the conversation's
-- analyses (`signals`, JSON array, empty when it has none), its blended step score and whether the
-- conversation itself is recorded (`known`, the base of the discovery share). A run
-- re-reads from the analysis tables only the conversations changed since the previous complete
-- run and takes every other conversation's signals, explained or still unexplained, from here.
CREATE TABLE IF NOT EXISTS {{db}}.problem_signals {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    conversation_id   String,
    version           UInt64,
    run_id            String,
    known             UInt8,
    signal_count      UInt32,
    blended           Nullable(Float64),
    signals           String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, conversation_id);
