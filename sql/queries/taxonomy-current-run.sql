-- The current taxonomy run of a tenant (stream and query roles): the latest complete one (docs/analyses.md "Use-case taxonomy").
-- Its `complete` row is written after everything else of the run, so this is the switch.
SELECT run_id, status, taxonomy_version, num_categories, num_clusters, num_segments, held_aside, mean_similarity, started_at, completed_at
FROM {{db}}.cluster_runs FINAL
WHERE tenant_id = {tenant:String} AND status = 'complete'
ORDER BY completed_at DESC, run_id DESC
LIMIT 1
