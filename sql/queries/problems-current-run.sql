-- The latest complete problems run of a tenant.
SELECT run_id, engine_version, started_at, completed_at, input_mark, stats
FROM {{db}}.problem_runs FINAL
WHERE tenant_id = {tenant:String} AND status = 'complete'
ORDER BY completed_at DESC, run_id DESC
LIMIT 1
