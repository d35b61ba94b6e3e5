-- Step scores, world state and user memory (docs/analyses.md, docs/storage.md). The first two are
-- per-conversation analyses keyed like the others of migration 0080: (tenant_id, conversation_id,
-- item_key), replaced per run by version, with tombstones for items a run no longer produces, read
-- with FINAL. The user memory is per user and replaced by version (last writer by version wins).

-- One row per scored segment (kind 'segment', item_key = segment id; `doc` is the segment as
-- GET /conversations/:id/step-scores shows it) and one per conversation for the rollup (kind
-- 'rollup', item_key 'rollup', absent while no segment carries weight). The rollup row backs the
-- `outcome` filter of GET /conversations.
CREATE TABLE IF NOT EXISTS {{db}}.step_scores {{on_cluster}}
(
    tenant_id               LowCardinality(String),
    conversation_id         String,
    item_key                String,
    version                 UInt64,
    is_deleted              UInt8,
    analyzer_version        UInt32,
    kind                    LowCardinality(String),
    segment_index           Int32,
    score                   Float32,
    failure_type            LowCardinality(String),
    blended_score           Nullable(Float64),
    segment_count           UInt32,
    weighted_segment_count  UInt32,
    total_weight            Float64,
    scored_at               DateTime64(3, 'UTC'),
    environment             LowCardinality(String),
    user_id                 String,
    doc                     String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (tenant_id, conversation_id, item_key);

-- One row per conversation (kind 'conversation', item_key 'conversation': user, warm start,
-- durable profile, summary, and `search_text` — the lower-cased keys and values of every segment's
-- slots and of the carried-in durable slots, which the `world_state` filter searches) and one per
-- segment (kind 'segment', item_key = segment id: the segment object, its keyframe — the state
-- before its first event — and its state events, in fold order).
CREATE TABLE IF NOT EXISTS {{db}}.world_state {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    conversation_id   String,
    item_key          String,
    version           UInt64,
    is_deleted        UInt8,
    analyzer_version  UInt32,
    kind              LowCardinality(String),
    segment_index     Int32,
    start_index       Int32,
    end_index         Int32,
    user_id           String,
    message_count     UInt32,
    event_count       UInt32,
    updated_at        DateTime64(3, 'UTC'),
    search_text       String CODEC(ZSTD(3)),
    doc               String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (tenant_id, conversation_id, item_key);

-- The compact memory of each user: per durable slot, its latest values with where each was stated
-- (stream/analyses/user-memory.ts). Read by the analysis loader for the users of a batch; no
-- endpoint exposes it.
CREATE TABLE IF NOT EXISTS {{db}}.user_memory {{on_cluster}}
(
    tenant_id              LowCardinality(String),
    user_id                String,
    version                UInt64,
    analyzer_version       UInt32,
    slot_count             UInt32,
    updated_at             DateTime64(3, 'UTC'),
    last_conversation_id   String,
    doc                    String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, user_id);
