-- Change history of a problem (and of the ids merged into it), newest first.
SELECT problem_id, event_id, event_kind, related_problem_id, rubric_version, causal_content_version, reason, created_ts
FROM {{db}}.problem_events FINAL
WHERE tenant_id = {tenant:String} AND problem_id IN {ids:Array(String)} AND created_ts <= {until:DateTime64(3, 'UTC')}
ORDER BY created_ts DESC, event_id DESC
LIMIT 200
