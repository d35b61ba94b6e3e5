-- GET /conversations: exact total for the same filters as query-conversations-list.
SELECT count() AS total
FROM {{db}}.conversations FINAL
WHERE tenant_id = {tenant:String}
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND ({user_id:String} = '' OR user_id = {user_id:String})
  AND last_ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
  AND ({cluster_id:String} = '' OR conversation_id IN (
    SELECT conversation_id FROM {{db}}.cluster_assignments FINAL
    WHERE tenant_id = {tenant:String} AND run_id = {cluster_run:String} AND node_id != ''
      AND (node_id = {cluster_id:String} OR category_id = {cluster_id:String})
  ))
  AND (
    {search:String} = ''
    OR hasAllTokens(lowerUTF8(summary), tokens(lowerUTF8({search:String}), 'splitByNonAlpha'))
    OR cityHash64(conversation_id) IN (
        SELECT conversation_hash FROM {{db}}.messages
        WHERE tenant_id = {tenant:String}
          AND hasAllTokens(lowerUTF8(content), tokens(lowerUTF8({search:String}), 'splitByNonAlpha'))
    )
  )
