-- skills_gen: the tenant's latest completed taxonomy run.
SELECT run_id FROM {{db}}.cluster_runs FINAL
WHERE tenant_id = {tenant:String} AND status = 'completed'
ORDER BY completed_at DESC
LIMIT 1
