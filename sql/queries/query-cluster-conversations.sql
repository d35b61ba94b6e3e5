-- GET /clusters/:nodeId/conversations: conversations with a segment assigned to the node (a leaf)
-- or to one of its clusters (a category) in the run, newest last activity first, with the exact
-- total before LIMIT (as query-conversations-list).
SELECT conversation_id, summary, message_count, count() OVER () AS total
FROM {{db}}.conversations FINAL
WHERE tenant_id = {tenant:String}
  AND conversation_id IN (
    SELECT conversation_id FROM {{db}}.cluster_assignments FINAL
    WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND node_id != ''
      AND (node_id = {node:String} OR category_id = {node:String})
  )
ORDER BY last_ts DESC, conversation_id DESC
LIMIT {limit:UInt32} OFFSET {offset:UInt32}
