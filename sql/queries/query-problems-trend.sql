-- Trend entries of a problem, newest run first.
SELECT run_ts, rank_score, total_attributions, rubric_version, coverage_overall
FROM {{db}}.problem_trend FINAL
WHERE tenant_id = {tenant:String} AND problem_id = {problem:String} AND run_ts <= {until:DateTime64(3, 'UTC')}
ORDER BY run_ts DESC
LIMIT 50
