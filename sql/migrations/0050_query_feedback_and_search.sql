-- Query role: general data-quality feedback (POST /api/v1/data/feedback) and the word index that
-- serves keyword search over message bodies (hasAllTokens on lowerUTF8(content)).

CREATE TABLE IF NOT EXISTS {{db}}.feedback {{on_cluster}}
(
    tenant_id        LowCardinality(String),
    feedback_id      UUID,
    submitted_at     DateTime64(3, 'UTC'),
    category         LowCardinality(String),
    severity         LowCardinality(String),
    note             String,
    source           LowCardinality(String),
    agent            String,
    cli_version      String,
    refs             String,
    command_context  String,
    key_id           String,
    request_id       String
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(submitted_at)
ORDER BY (tenant_id, submitted_at, feedback_id);

ALTER TABLE {{db}}.messages {{on_cluster}} ADD INDEX IF NOT EXISTS idx_content_words lowerUTF8(content) TYPE text(tokenizer = 'splitByNonAlpha');

ALTER TABLE {{db}}.messages {{on_cluster}} MATERIALIZE INDEX idx_content_words;

ALTER TABLE {{db}}.conversations {{on_cluster}} ADD INDEX IF NOT EXISTS idx_summary_words lowerUTF8(summary) TYPE text(tokenizer = 'splitByNonAlpha');
