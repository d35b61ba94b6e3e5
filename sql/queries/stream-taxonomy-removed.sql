-- Segments assigned in the run that no longer have goal text (re-segmented or emptied): they leave
-- their node (assigned again as held aside, source `removed`).
SELECT segment_id, conversation_id
FROM {{db}}.cluster_assignments FINAL
WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND node_id != ''
  AND segment_id NOT IN (SELECT item_key FROM {{db}}.segment_texts FINAL WHERE tenant_id = {tenant:String} AND text != '')
