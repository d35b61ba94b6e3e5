-- skills_gen: use-case clusters (depth-1 nodes of a taxonomy run) with their conversations that
-- ended without a negative signal (no frustration, no laziness, no contradicted claim), among the
-- most recent {max_sessions} conversations active in [{start}, {end}].
SELECT a.leaf AS node_id, any(n.label) AS label, any(n.summary) AS summary, any(n.keywords) AS keywords,
       uniqExact(a.conv) AS conversations,
       uniqExactIf(a.conv, s.frustrated = 0 AND s.lazy = 0 AND s.contradicted_claims = 0) AS successful,
       groupUniqArrayIf(20)(a.conv, s.frustrated = 0 AND s.lazy = 0 AND s.contradicted_claims = 0) AS sample
FROM
(
    SELECT segment_id, argMax(conversation_id, version) AS conv, argMax(node_id, version) AS leaf
    FROM {{db}}.cluster_assignments
    WHERE tenant_id = {tenant:String} AND run_id = {run:String}
      AND conversation_id IN (
          SELECT conversation_id FROM {{db}}.conversations FINAL
          WHERE tenant_id = {tenant:String} AND last_ts >= {start:DateTime64(3, 'UTC')} AND last_ts <= {end:DateTime64(3, 'UTC')}
          ORDER BY last_ts DESC
          LIMIT {max_sessions:UInt32}
      )
    GROUP BY segment_id
) AS a
INNER JOIN
(
    SELECT node_id, any(label) AS label, any(summary) AS summary, any(keywords) AS keywords
    FROM {{db}}.cluster_nodes
    WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND depth = 1
    GROUP BY node_id
) AS n ON n.node_id = a.leaf
LEFT JOIN
(
    SELECT conversation_id, argMax(frustrated, version) AS frustrated, argMax(lazy, version) AS lazy, argMax(contradicted_claims, version) AS contradicted_claims
    FROM {{db}}.conversation_signals
    WHERE tenant_id = {tenant:String}
    GROUP BY conversation_id
) AS s ON s.conversation_id = a.conv
WHERE a.leaf != ''
GROUP BY a.leaf
HAVING successful >= 1
ORDER BY successful DESC, node_id
LIMIT {limit:UInt32}
