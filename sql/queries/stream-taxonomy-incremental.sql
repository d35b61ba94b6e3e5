-- Assignments made since the run was built (drift and held-aside triggers of a rebuild).
SELECT count() AS n, countIf(node_id = '') AS aside, ifNull(avg(similarity), 0) AS sim
FROM {{db}}.cluster_assignments FINAL
WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND source = 'incremental'
