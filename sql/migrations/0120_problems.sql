-- Problems (docs/analyses.md "Problems", docs/storage.md). Written only by the leased `problems`
-- job of the stream role, except `problem_feedback`, which the data API writes as `pending` and the
-- job marks consumed. A run writes its problems, attributions and reports keyed by run id, then its
-- `complete` row: readers take the latest complete run, so they see one run whole. Change history,
-- trend, aliases and feedback are kept across runs.

-- One row per run and state change (`building`, then `complete`); `stats` holds the run's counts
-- (signals, attributed, unexplained, discovery, verification, backlog) as JSON.
CREATE TABLE IF NOT EXISTS {{db}}.problem_runs {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    run_id            String,
    version           UInt64,
    status            LowCardinality(String),
    engine_version    UInt32,
    started_at        DateTime64(3, 'UTC'),
    completed_at      DateTime64(3, 'UTC'),
    input_mark        String,
    stats             String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, run_id);

-- The problems of a run: identity, definition (latest rubric), lifecycle, verification, metrics
-- and rank. `doc` holds the full state as JSON (rubric, metrics, verification, dossier, stories).
CREATE TABLE IF NOT EXISTS {{db}}.problems {{on_cluster}}
(
    tenant_id               LowCardinality(String),
    run_id                  String,
    problem_id              String,
    cause_key               String,
    status                  LowCardinality(String),
    merged_into             String,
    lifecycle               LowCardinality(String),
    tier                    LowCardinality(String),
    parent_problem_id       String,
    provisional             UInt8,
    rubric_version          UInt32,
    causal_content_version  UInt32,
    display_name            String,
    cause_statement         String CODEC(ZSTD(3)),
    verification_status     LowCardinality(String),
    rank_score              Float64,
    total_attributions      UInt32,
    created_at              DateTime64(3, 'UTC'),
    updated_at              DateTime64(3, 'UTC'),
    doc                     String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, run_id, problem_id);

-- Every rubric version of every problem (definition history; `doc` is the rubric as
-- GET /problems/:id shows it).
CREATE TABLE IF NOT EXISTS {{db}}.problem_definitions {{on_cluster}}
(
    tenant_id               LowCardinality(String),
    problem_id              String,
    rubric_version          UInt32,
    causal_content_version  UInt32,
    change_reason           String,
    created_at              DateTime64(3, 'UTC'),
    doc                     String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, problem_id, rubric_version);

-- Attributions of a run: a negative signal explained by a problem, with its anchor (conversation,
-- segment, message) and door (`rubric_match` or `local_causal_chain`). `attribution_id` is stable
-- across runs (derived from problem, conversation and signal); `first_assigned_at` is carried over.
CREATE TABLE IF NOT EXISTS {{db}}.problem_attributions {{on_cluster}}
(
    tenant_id           LowCardinality(String),
    run_id              String,
    problem_id          String,
    attribution_id      String,
    conversation_id     String,
    segment_id          String,
    anchor_signal_id    String,
    anchor_msg_index    Int32,
    signal_kind         LowCardinality(String),
    signal_family       LowCardinality(String),
    signal_type         String,
    confidence          Float32,
    door                LowCardinality(String),
    cause_signal_id     String,
    cause_msg_index     Int32,
    causal_rationale    String CODEC(ZSTD(3)),
    replay_verified     Nullable(UInt8),
    evidence_snippet    String CODEC(ZSTD(3)),
    snippet             String CODEC(ZSTD(3)),
    dedup_count         UInt32,
    user_id             String,
    signal_ts           DateTime64(3, 'UTC'),
    assigned_at         DateTime64(3, 'UTC'),
    first_assigned_at   DateTime64(3, 'UTC'),
    report_id           String
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, run_id, problem_id, attribution_id);

-- Investigation reports of a run: one per problem and conversation (`doc` is the report object).
CREATE TABLE IF NOT EXISTS {{db}}.problem_reports {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    run_id            String,
    problem_id        String,
    report_id         String,
    conversation_id   String,
    status            LowCardinality(String),
    investigated_at   DateTime64(3, 'UTC'),
    doc               String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, run_id, problem_id, report_id);

-- Change history: every creation, lifecycle transition, merge, rename, dismissal and rubric version.
CREATE TABLE IF NOT EXISTS {{db}}.problem_events {{on_cluster}}
(
    tenant_id               LowCardinality(String),
    problem_id              String,
    event_id                String,
    run_id                  String,
    event_kind              LowCardinality(String),
    related_problem_id      String,
    rubric_version          UInt32,
    causal_content_version  UInt32,
    reason                  String CODEC(ZSTD(3)),
    created_ts              DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, problem_id, created_ts, event_id);

-- One trend entry per problem and completed run.
CREATE TABLE IF NOT EXISTS {{db}}.problem_trend {{on_cluster}}
(
    tenant_id           LowCardinality(String),
    problem_id          String,
    run_ts              DateTime64(3, 'UTC'),
    run_id              String,
    rank_score          Float64,
    total_attributions  UInt32,
    rubric_version      UInt32,
    coverage_overall    Float64
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, problem_id, run_ts, run_id);

-- A merged-away problem id and its survivor.
CREATE TABLE IF NOT EXISTS {{db}}.problem_aliases {{on_cluster}}
(
    tenant_id     LowCardinality(String),
    alias_id      String,
    problem_id    String,
    run_id        String,
    created_at    DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, alias_id);

-- Problem feedback: stored `pending` by POST /problems/:id/feedback, consumed by the next run
-- (`status` `consumed`, `consumed_by_run_id`). `feedback_id` derives from the payload.
CREATE TABLE IF NOT EXISTS {{db}}.problem_feedback {{on_cluster}}
(
    tenant_id           LowCardinality(String),
    feedback_id         String,
    version             UInt64,
    problem_id          String,
    payload_hash        String,
    feedback_kind       LowCardinality(String),
    reason              String CODEC(ZSTD(3)),
    attribution_id      String,
    new_display_name    String,
    actor               String,
    fix_ref             String CODEC(ZSTD(3)),
    status              LowCardinality(String),
    consumed_by_run_id  String,
    outcome             String,
    created_at          DateTime64(3, 'UTC'),
    consumed_at         DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, feedback_id);
