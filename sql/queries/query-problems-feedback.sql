-- Feedback given on a problem (and on the ids merged into it), newest first.
SELECT feedback_id, feedback_kind, reason, attribution_id, new_display_name, actor, status, consumed_by_run_id, created_at, fix_ref
FROM {{db}}.problem_feedback FINAL
WHERE tenant_id = {tenant:String} AND problem_id IN {ids:Array(String)}
ORDER BY created_at DESC, feedback_id
LIMIT 500
