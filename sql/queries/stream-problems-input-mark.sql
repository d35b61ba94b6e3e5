-- What the engine reads changed since a run when this fingerprint differs: the highest version of
-- every analysis table it reads (the watermarks of incremental runs) and the tenant-wide inputs
-- that change signals of every conversation (failure category labels).
SELECT
    (SELECT toString(max(version)) FROM {{db}}.emotion_detections WHERE tenant_id = {tenant:String}) AS emotions,
    (SELECT toString(max(version)) FROM {{db}}.conversation_tool_calls WHERE tenant_id = {tenant:String}) AS calls,
    (SELECT toString(max(version)) FROM {{db}}.laziness_detections WHERE tenant_id = {tenant:String}) AS laziness,
    (SELECT toString(max(version)) FROM {{db}}.hallucination_findings WHERE tenant_id = {tenant:String}) AS hallucinations,
    (SELECT toString(max(version)) FROM {{db}}.step_scores WHERE tenant_id = {tenant:String}) AS steps,
    (SELECT toString(max(version)) FROM {{db}}.conversations WHERE tenant_id = {tenant:String}) AS conversations,
    (SELECT toString(max(version)) FROM {{db}}.conversation_segments WHERE tenant_id = {tenant:String}) AS segments,
    (SELECT concat(toString(count()), ':', toString(max(created_at))) FROM {{db}}.tool_failure_categories WHERE tenant_id = {tenant:String}) AS categories
