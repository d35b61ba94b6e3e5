-- GET /clusters/:nodeId/conversations: the exact total for a page past the end.
SELECT count() AS n
FROM {{db}}.conversations FINAL
WHERE tenant_id = {tenant:String}
  AND conversation_id IN (
    SELECT conversation_id FROM {{db}}.cluster_assignments FINAL
    WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND node_id != ''
      AND (node_id = {node:String} OR category_id = {node:String})
  )
