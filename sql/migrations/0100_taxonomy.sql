-- Use-case taxonomy and vectors (docs/analyses.md "Use-case taxonomy", "Vectors and search";
-- docs/storage.md). Segment goal texts are written by the per-conversation analysis; everything else
-- by the leased `taxonomy` job of the stream role. A taxonomy build is a cluster run: its model,
-- nodes, vectors and assignments are keyed by run id and written before the run's `complete` row,
-- which is the switch: readers take the latest complete run, so they never see a half-written one.

-- The goal text of every segment (segment-goals analyzer): what vectors are computed from.
CREATE TABLE IF NOT EXISTS {{db}}.segment_texts {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    conversation_id   String,
    item_key          String,
    version           UInt64,
    is_deleted        UInt8,
    analyzer_version  UInt32,
    segment_index     UInt32,
    goal              String CODEC(ZSTD(3)),
    text              String CODEC(ZSTD(3)),
    text_hash         String,
    last_ts           DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (tenant_id, conversation_id, item_key);

-- One row per run and state change (`building`, then `complete` or `failed`); the latest complete
-- run of a tenant is its current taxonomy.
CREATE TABLE IF NOT EXISTS {{db}}.cluster_runs {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    run_id            String,
    version           UInt64,
    status            LowCardinality(String),
    trigger           LowCardinality(String),
    taxonomy_version  UInt32,
    num_categories    UInt32,
    num_clusters      UInt32,
    num_segments      UInt32,
    held_aside        UInt32,
    dims              UInt16,
    leaf_cut          Float32,
    silhouette        Float32,
    mean_similarity   Float32,
    started_at        DateTime64(3, 'UTC'),
    completed_at      DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, run_id);

-- The nodes of a run: categories (depth 0) and their clusters (depth 1), with centroids.
CREATE TABLE IF NOT EXISTS {{db}}.cluster_nodes {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    run_id            String,
    node_id           String,
    parent_id         String,
    depth             UInt8,
    node_type         LowCardinality(String),
    label             String,
    summary           String,
    keywords          Array(String),
    segment_count     UInt32,
    has_children      UInt8,
    threshold         Float32,
    centroid          Array(Float32) CODEC(ZSTD(1))
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, run_id, node_id);

-- Segment → leaf of a run (node_id '' = held aside), written by the build and then continuously by
-- the assignment of new or changed segments (higher version).
CREATE TABLE IF NOT EXISTS {{db}}.cluster_assignments {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    run_id            String,
    segment_id        String,
    version           UInt64,
    conversation_id   String,
    node_id           String,
    category_id       String,
    similarity        Float32,
    text_hash         String,
    source            LowCardinality(String),
    assigned_at       DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, run_id, segment_id);

-- Unit vectors of the segments in the run's LSA space (semantic search, assignment).
CREATE TABLE IF NOT EXISTS {{db}}.segment_vectors {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    run_id            String,
    segment_id        String,
    version           UInt64,
    conversation_id   String,
    vector            Array(Float32) CODEC(ZSTD(1))
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, run_id, segment_id);

-- The text model of a run: one row per vocabulary feature (hash, block, idf, its row of the LSA projection).
CREATE TABLE IF NOT EXISTS {{db}}.cluster_models {{on_cluster}}
(
    tenant_id         LowCardinality(String),
    run_id            String,
    feature           UInt32,
    block             UInt8,
    idf               Float32,
    vector            Array(Float32) CODEC(ZSTD(1))
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, run_id, feature);
