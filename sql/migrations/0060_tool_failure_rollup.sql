-- Tool-failure rollup (docs/data-api.md "GET /tool-failures", "Performance"): what the
-- tool-failure endpoints and the overview's tool_failures block read instead of folding every call
-- of the tenant. Written by the stream role's `tool-failure-rollup` analyzer
-- (stream/analyze/tool-failures.ts) from the folded calls of each changed conversation; every row
-- is a replacement (ReplacingMergeTree version, is_deleted), never an increment, so a retried or
-- repeated run writes the same values again.

-- One row per folded call, keyed so that a tool's failures of a range of days are one key range.
-- A call whose tool, outcome or day changes gets a tombstone (is_deleted = 1) at its old key.
CREATE TABLE IF NOT EXISTS {{db}}.tool_call_facts {{on_cluster}}
(
    tenant_id        LowCardinality(String),
    tool_name        String,
    failed           UInt8,
    day              Date,
    conversation_id  String,
    call_id          String,
    version          UInt64,
    is_deleted       UInt8,
    environment      LowCardinality(String),
    effect_class     LowCardinality(String),
    ts               DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
    error            String CODEC(ZSTD(3)),
    error_type       LowCardinality(String)
)
ENGINE = ReplacingMergeTree(version, is_deleted)
PARTITION BY toYYYYMM(day)
ORDER BY (tenant_id, tool_name, failed, day, conversation_id, call_id);

-- What the analyzer last wrote for each call (looked up by conversation): a change of tool, outcome
-- or day tombstones the old fact row, and only changed calls are rewritten.
CREATE TABLE IF NOT EXISTS {{db}}.tool_call_rollup_state {{on_cluster}}
(
    tenant_id        LowCardinality(String),
    conversation_id  String,
    call_id          String,
    version          UInt64,
    tool_name        String,
    failed           UInt8,
    day              Date,
    environment      LowCardinality(String),
    effect_class     LowCardinality(String),
    ts               DateTime64(3, 'UTC'),
    error            String CODEC(ZSTD(3)),
    error_type       LowCardinality(String)
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, conversation_id, call_id);

-- One row per (tenant, UTC day of the call's start, environment, tool, effect class), recomputed
-- from tool_call_facts for every day a run touched. A group that no longer has calls is
-- tombstoned. Distinct failed conversations are uniqExact states: merged over the window's days
-- they give the exact count. error_counts: the day's (at most) 10 most frequent error texts of the
-- group's failed calls with their counts, the source of the endpoints' example_errors.
CREATE TABLE IF NOT EXISTS {{db}}.tool_failures_daily {{on_cluster}}
(
    tenant_id            LowCardinality(String),
    day                  Date,
    environment          LowCardinality(String),
    tool_name            String,
    effect_class         LowCardinality(String),
    version              UInt64,
    is_deleted           UInt8,
    calls                UInt64,
    failures             UInt64,
    last_failure_at      DateTime64(3, 'UTC'),
    failed_conversations AggregateFunction(uniqExact, String),
    error_counts         Map(String, UInt64)
)
ENGINE = ReplacingMergeTree(version, is_deleted)
PARTITION BY toYYYYMM(day)
ORDER BY (tenant_id, day, environment, tool_name, effect_class);

-- One row per (tenant, tool, UTC day, environment, error text) of failed calls, recomputed with the
-- daily rows: the error list of GET /tool-failures/:tool. Counts and last_seen sum/max exactly over
-- days; examples are the day's 3 newest failed calls, so the window's 3 newest are among them.
CREATE TABLE IF NOT EXISTS {{db}}.tool_errors_daily {{on_cluster}}
(
    tenant_id        LowCardinality(String),
    tool_name        String,
    day              Date,
    environment      LowCardinality(String),
    error            String CODEC(ZSTD(3)),
    version          UInt64,
    is_deleted       UInt8,
    error_type       LowCardinality(String),
    failures         UInt64,
    last_seen        DateTime64(3, 'UTC'),
    examples         Array(Tuple(String, String, DateTime64(3, 'UTC')))
)
ENGINE = ReplacingMergeTree(version, is_deleted)
PARTITION BY toYYYYMM(day)
ORDER BY (tenant_id, tool_name, day, environment, error);

-- Backfill: calls stored before this migration (version 1; every later write has a larger one).
-- Same fold and same columns as stream/analyze/tool-failures.ts (rebuildToolFailureRollup).
INSERT INTO {{db}}.tool_call_facts (tenant_id, tool_name, failed, day, conversation_id, call_id, version, is_deleted, environment, effect_class, ts, error, error_type)
SELECT tenant_id, tool_name, toUInt8(success = 0), toDate(start), conversation_id, call_id, 1, 0, environment, if(effect = '', 'unknown', effect), start, error, error_type
FROM (
    SELECT tenant_id, conversation_id, call_id, min(ts) AS start, max(tool_name) AS tool_name, max(success) AS success,
           max(environment) AS environment, max(effect_class) AS effect, max(error) AS error, max(error_type) AS error_type
    FROM {{db}}.tool_calls
    GROUP BY tenant_id, conversation_id, call_id
);

INSERT INTO {{db}}.tool_call_rollup_state (tenant_id, conversation_id, call_id, version, tool_name, failed, day, environment, effect_class, ts, error, error_type)
SELECT tenant_id, conversation_id, call_id, 1, tool_name, failed, day, environment, effect_class, ts, error, error_type
FROM {{db}}.tool_call_facts FINAL;

INSERT INTO {{db}}.tool_failures_daily (tenant_id, day, environment, tool_name, effect_class, version, is_deleted, calls, failures, last_failure_at, failed_conversations, error_counts)
SELECT tenant_id, day, environment, tool_name, effect_class, 1, 0, count(), countIf(failed = 1), maxIf(ts, failed = 1),
       uniqExactStateIf(conversation_id, failed = 1), mapFromArrays(arrayMap(x -> x.1, arraySlice(arraySort(x -> (-toInt64(x.2), x.1), arrayZip((sumMapIf([error], [toUInt64(1)], failed = 1 AND error != '') AS errs).1, errs.2)), 1, 10) AS top), arrayMap(x -> x.2, top))
FROM {{db}}.tool_call_facts FINAL
GROUP BY tenant_id, day, environment, tool_name, effect_class;

INSERT INTO {{db}}.tool_errors_daily (tenant_id, tool_name, day, environment, error, version, is_deleted, error_type, failures, last_seen, examples)
SELECT tenant_id, tool_name, day, environment, error, 1, 0, argMax(error_type, ts), count(), max(ts),
       arraySlice(arrayReverseSort(x -> (x.3, x.1, x.2), groupArray((conversation_id, call_id, ts))), 1, 3)
FROM {{db}}.tool_call_facts FINAL
WHERE failed = 1
GROUP BY tenant_id, tool_name, day, environment, error;
