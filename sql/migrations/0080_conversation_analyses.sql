-- Per-conversation analyses (docs/analyses.md, docs/stream.md "Analysis framework"). Each analyzer
-- writes its own table, stamped with its analyzer_version; a conversation's rows are replaced on
-- every run (ReplacingMergeTree by run version), and an item that a new run no longer produces gets
-- a tombstone (is_deleted = 1) at its key, so reads with FINAL see exactly the latest run. Rows are
-- keyed by (tenant_id, conversation_id, item_key); item_key is the item's identity within the
-- conversation (a call key, a segment id, message index and signal, …). No time partition: the
-- copies of one item must stay in one partition to be replaced.

-- The latest outcome of every analyzer for every conversation: what it wrote (item keys, for
-- tombstones), with which analyzer_version, and whether it failed (and how often, for retries).
CREATE TABLE IF NOT EXISTS {{db}}.analysis_state {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    conversation_id   String,
    analyzer          LowCardinality(String),
    version           UInt64,
    analyzer_version  UInt32,
    outcome           LowCardinality(String),
    error             String,
    attempts          UInt16,
    item_keys         Array(String) CODEC(ZSTD(3)),
    message_count     UInt32,
    updated_at        DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, conversation_id, analyzer);

-- Every tool call of a conversation as the pairing analysis sees it (a tool_use answered in order
-- by its tool_result, or a telemetry call), with its failure category.
CREATE TABLE IF NOT EXISTS {{db}}.conversation_tool_calls {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    conversation_id   String,
    item_key          String,
    version           UInt64,
    is_deleted        UInt8,
    analyzer_version  UInt32,
    tool_use_id       String,
    tool_name         String,
    message_index     Int32,
    result_index      Int32,
    ts                DateTime64(3, 'UTC'),
    success           Int8,
    effect_class      LowCardinality(String),
    error             String CODEC(ZSTD(3)),
    error_type        LowCardinality(String),
    category_id       String,
    family            LowCardinality(String),
    environment       LowCardinality(String),
    user_id           String
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (tenant_id, conversation_id, item_key);

-- The workspace's failure categories (error templates); an id never changes once issued.
CREATE TABLE IF NOT EXISTS {{db}}.tool_failure_categories {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    category_id       String,
    analyzer_version  UInt32,
    template          String,
    label             String,
    family            LowCardinality(String),
    likely_cause      String,
    action_hint       String,
    tool_hint         String,
    created_at        DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, category_id);

CREATE TABLE IF NOT EXISTS {{db}}.conversation_segments {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    conversation_id   String,
    item_key          String,
    version           UInt64,
    is_deleted        UInt8,
    analyzer_version  UInt32,
    segment_index     UInt32,
    start_index       UInt32,
    end_index         UInt32
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (tenant_id, conversation_id, item_key);

CREATE TABLE IF NOT EXISTS {{db}}.conversation_summaries {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    conversation_id   String,
    version           UInt64,
    analyzer_version  UInt32,
    summary           String,
    message_count     UInt32
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, conversation_id);

CREATE TABLE IF NOT EXISTS {{db}}.emotion_detections {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    conversation_id   String,
    item_key          String,
    version           UInt64,
    is_deleted        UInt8,
    analyzer_version  UInt32,
    message_index     UInt32,
    message_ts        DateTime64(3, 'UTC'),
    family            LowCardinality(String),
    signal            LowCardinality(String),
    score             Float32,
    risk_score        Float32,
    trajectory        LowCardinality(String),
    elicitor          LowCardinality(String),
    cause             String,
    quotes            Array(String) CODEC(ZSTD(3)),
    environment       LowCardinality(String),
    user_id           String
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (tenant_id, conversation_id, item_key);

CREATE TABLE IF NOT EXISTS {{db}}.laziness_detections {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    conversation_id   String,
    item_key          String,
    version           UInt64,
    is_deleted        UInt8,
    analyzer_version  UInt32,
    message_index     UInt32,
    message_ts        DateTime64(3, 'UTC'),
    pattern           LowCardinality(String),
    confidence        Float32,
    quote             String CODEC(ZSTD(3)),
    truncated_data    UInt8,
    environment       LowCardinality(String)
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (tenant_id, conversation_id, item_key);

CREATE TABLE IF NOT EXISTS {{db}}.hallucination_findings {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    conversation_id   String,
    item_key          String,
    version           UInt64,
    is_deleted        UInt8,
    analyzer_version  UInt32,
    message_index     UInt32,
    message_ts        DateTime64(3, 'UTC'),
    claim_type        LowCardinality(String),
    claim             String CODEC(ZSTD(3)),
    verdict           LowCardinality(String),
    evidence          String CODEC(ZSTD(3)),
    environment       LowCardinality(String),
    user_id           String
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (tenant_id, conversation_id, item_key);

-- One row per conversation: the headline signals the overview, the conversation filters and the
-- aggregate rates read (frustrated / at risk, laziness, claim counts including unverified ones).
CREATE TABLE IF NOT EXISTS {{db}}.conversation_signals {{on_cluster}}
(
    tenant_id          LowCardinality(String),
    conversation_id    String,
    version            UInt64,
    last_ts            DateTime64(3, 'UTC'),
    environment        LowCardinality(String),
    user_id            String,
    user_messages      UInt32,
    frustrated         UInt8,
    at_risk            UInt8,
    max_risk           Float32,
    frustrated_messages UInt32,
    emotion_count      UInt32,
    lazy               UInt8,
    laziness_count     UInt32,
    claims             UInt32,
    verified_claims    UInt32,
    contradicted_claims UInt32,
    unverified_claims  UInt32,
    emotions_version   UInt32,
    laziness_version   UInt32,
    hallucinations_version UInt32
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, conversation_id);

-- The failure category of each folded call in the tool-failure rollup, and the daily counts per
-- category that GET /tool-failures lists (recomputed with the other daily rows).
ALTER TABLE {{db}}.tool_call_facts {{on_cluster}} ADD COLUMN IF NOT EXISTS category_id String;

ALTER TABLE {{db}}.tool_call_rollup_state {{on_cluster}} ADD COLUMN IF NOT EXISTS category_id String;

CREATE TABLE IF NOT EXISTS {{db}}.tool_categories_daily {{on_cluster}}
(
    tenant_id            LowCardinality(String),
    day                  Date,
    environment          LowCardinality(String),
    tool_name            String,
    category_id          String,
    version              UInt64,
    is_deleted           UInt8,
    failures             UInt64,
    last_seen            DateTime64(3, 'UTC'),
    failed_conversations AggregateFunction(uniqExact, String),
    example_error        String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree(version, is_deleted)
PARTITION BY toYYYYMM(day)
ORDER BY (tenant_id, day, environment, tool_name, category_id);
