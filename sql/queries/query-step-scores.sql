-- GET /conversations/:id/step-scores: the newest scoring pass of every segment and the rollup row
-- of one conversation (a primary-key range). Params: tenant String, id String.
SELECT kind, segment_index, doc
FROM {{db}}.step_scores FINAL
WHERE tenant_id = {tenant:String} AND conversation_id = {id:String}
ORDER BY segment_index
