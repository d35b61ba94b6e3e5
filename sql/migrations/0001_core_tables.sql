-- Core storage. Tenant leads every sort key; partitions by month of event time.
-- Sort keys hold only columns derived from a row's content (never receive or insert times), so the
-- copies of a redelivered row have equal keys and ReplacingMergeTree dedup converges.
-- Tables that can receive the same row twice (redelivery) are Replacing/Aggregating MergeTrees keyed
-- so that a replay converges; reads use FINAL or GROUP BY on the key.

CREATE TABLE IF NOT EXISTS {{db}}.events {{on_cluster}}
(
    tenant_id        LowCardinality(String),
    event_time       DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
    event_id         String,
    receive_time     DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
    inserted_at      DateTime64(3, 'UTC') DEFAULT now64(3) CODEC(Delta, ZSTD(1)),
    agent            LowCardinality(String),
    source           LowCardinality(String),
    type             LowCardinality(String),
    name             LowCardinality(String),
    conversation_id  String,
    user_id          String,
    environment      LowCardinality(String),
    sequence         UInt64,
    trace_id         String,
    span_id          String,
    attributes       Map(LowCardinality(String), String) CODEC(ZSTD(3)),
    resource         Map(LowCardinality(String), String) CODEC(ZSTD(3)),
    scope_name       LowCardinality(String),
    scope_version    LowCardinality(String),
    facets           String CODEC(ZSTD(3)),
    -- normalized columns lifted from the facets (0 / '' when the event has none)
    model            LowCardinality(String),
    input_tokens     UInt64 CODEC(T64, ZSTD(1)),
    output_tokens    UInt64 CODEC(T64, ZSTD(1)),
    cache_read_tokens     UInt64 CODEC(T64, ZSTD(1)),
    cache_creation_tokens UInt64 CODEC(T64, ZSTD(1)),
    cost_usd         Float64 CODEC(Gorilla, ZSTD(1)),
    tool_name        LowCardinality(String),
    tool_call_id     String,
    -- -1 unknown, 0 failed, 1 succeeded
    success          Int8 DEFAULT -1,
    duration_ms      Float64 CODEC(Gorilla, ZSTD(1)),
    message_id       String,
    -- insert order follows inserted_at closely: the range of each granule prunes the reconcile scan
    INDEX idx_inserted inserted_at TYPE minmax GRANULARITY 1,
    INDEX idx_user user_id TYPE bloom_filter(0.01) GRANULARITY 4,
    INDEX idx_trace trace_id TYPE bloom_filter(0.01) GRANULARITY 4,
    INDEX idx_tool tool_name TYPE set(256) GRANULARITY 4
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(event_time)
-- conversation second: the rollups read one tenant's conversations by primary key, not by scan
ORDER BY (tenant_id, conversation_id, event_time, event_id)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS {{db}}.spans {{on_cluster}}
(
    tenant_id        LowCardinality(String),
    trace_id         String,
    span_id          String,
    parent_span_id   String,
    start_time       DateTime64(6, 'UTC') CODEC(Delta, ZSTD(1)),
    end_time         DateTime64(6, 'UTC') CODEC(Delta, ZSTD(1)),
    duration_ms      Float64,
    name             LowCardinality(String),
    kind             UInt8,
    status_code      UInt8,
    status_message   String,
    agent            LowCardinality(String),
    conversation_id  String,
    gen_ai_operation LowCardinality(String),
    gen_ai_provider  LowCardinality(String),
    gen_ai_request_model  LowCardinality(String),
    gen_ai_response_model LowCardinality(String),
    gen_ai_input_tokens   UInt64,
    gen_ai_output_tokens  UInt64,
    gen_ai_tool_name      LowCardinality(String),
    gen_ai_tool_call_id   String,
    attributes       Map(LowCardinality(String), String) CODEC(ZSTD(3)),
    resource         Map(LowCardinality(String), String) CODEC(ZSTD(3)),
    events           String CODEC(ZSTD(3)),
    event_id         String,
    inserted_at      DateTime64(3, 'UTC') DEFAULT now64(3),
    INDEX idx_conversation conversation_id TYPE bloom_filter(0.01) GRANULARITY 4
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(start_time)
ORDER BY (tenant_id, trace_id, span_id)
SETTINGS non_replicated_deduplication_window = 10000;

-- One row per message; `index` is computed at read time: row_number() over (ts, seq, message_id).
CREATE TABLE IF NOT EXISTS {{db}}.messages {{on_cluster}}
(
    tenant_id        LowCardinality(String),
    conversation_id  String,
    message_id       String,
    ts               DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
    seq              UInt64,
    role             LowCardinality(String),
    content          String CODEC(ZSTD(3)),
    content_blocks   String CODEC(ZSTD(3)),
    tool_calls       String CODEC(ZSTD(3)),
    tool_results     String CODEC(ZSTD(3)),
    has_tool_error   UInt8,
    model            LowCardinality(String),
    provider         LowCardinality(String),
    input_tokens     UInt64,
    output_tokens    UInt64,
    reasoning_tokens UInt64,
    user_id          String,
    environment      LowCardinality(String),
    agent            LowCardinality(String),
    source           LowCardinality(String),
    thread_id        String,
    parent_message_id String,
    format           LowCardinality(String),
    metadata         String CODEC(ZSTD(3)),
    event_id         String,
    inserted_at      DateTime64(3, 'UTC') DEFAULT now64(3),
    INDEX idx_content content TYPE ngrambf_v1(3, 65536, 3, 0) GRANULARITY 2
)
ENGINE = ReplacingMergeTree(inserted_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (tenant_id, conversation_id, message_id)
SETTINGS non_replicated_deduplication_window = 10000;

-- Decision and result of one call arrive as separate rows in any order; every column merges with
-- max(), where the "unknown" value is the smallest (empty string, -1, 0), so the pair folds into one.
CREATE TABLE IF NOT EXISTS {{db}}.tool_calls {{on_cluster}}
(
    tenant_id        LowCardinality(String),
    conversation_id  String,
    call_id          String,
    ts               SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    last_ts          SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    tool_name        SimpleAggregateFunction(max, String),
    input            SimpleAggregateFunction(max, String),
    command          SimpleAggregateFunction(max, String),
    effect_class     SimpleAggregateFunction(max, String),
    success          SimpleAggregateFunction(max, Int8),
    error            SimpleAggregateFunction(max, String),
    error_type       SimpleAggregateFunction(max, String),
    duration_ms      SimpleAggregateFunction(max, Float64),
    decision         SimpleAggregateFunction(max, String),
    decision_source  SimpleAggregateFunction(max, String),
    agent            SimpleAggregateFunction(max, String),
    environment      SimpleAggregateFunction(max, String),
    user_id          SimpleAggregateFunction(max, String),
    message_id       SimpleAggregateFunction(max, String),
    mcp_server       SimpleAggregateFunction(max, String)
)
ENGINE = AggregatingMergeTree
PARTITION BY tuple()
ORDER BY (tenant_id, conversation_id, call_id)
SETTINGS non_replicated_deduplication_window = 10000;

-- Recomputed from messages/events/tool_calls when a conversation changes; the highest version wins.
CREATE TABLE IF NOT EXISTS {{db}}.conversations {{on_cluster}}
(
    tenant_id        LowCardinality(String),
    conversation_id  String,
    version          UInt64,
    environment      LowCardinality(String),
    user_id          String,
    agent            LowCardinality(String),
    message_count    UInt32,
    first_ts         DateTime64(3, 'UTC'),
    last_ts          DateTime64(3, 'UTC'),
    input_tokens     UInt64,
    output_tokens    UInt64,
    cost_usd         Float64,
    tool_call_count  UInt32,
    tool_failure_count UInt32,
    api_request_count  UInt32,
    api_error_count    UInt32,
    thread_count     UInt32,
    summary          String,
    updated_at       DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, conversation_id);
