-- skills_gen: use-case clusters (depth-1 nodes of a taxonomy run) with their conversations that
-- ended without a negative signal (no frustration, no laziness, no contradicted claim).
SELECT a.node_id AS node_id, any(n.label) AS label, any(n.summary) AS summary, any(n.keywords) AS keywords,
       uniqExact(a.conversation_id) AS conversations,
       uniqExactIf(a.conversation_id, s.frustrated = 0 AND s.lazy = 0 AND s.contradicted_claims = 0) AS successful,
       groupUniqArrayIf(20)(a.conversation_id, s.frustrated = 0 AND s.lazy = 0 AND s.contradicted_claims = 0) AS sample
FROM
(
    SELECT segment_id, argMax(conversation_id, version) AS conversation_id, argMax(node_id, version) AS node_id
    FROM {{db}}.cluster_assignments
    WHERE tenant_id = {tenant:String} AND run_id = {run:String}
    GROUP BY segment_id
) AS a
INNER JOIN
(
    SELECT node_id, any(label) AS label, any(summary) AS summary, any(keywords) AS keywords
    FROM {{db}}.cluster_nodes
    WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND depth = 1
    GROUP BY node_id
) AS n ON n.node_id = a.node_id
LEFT JOIN
(
    SELECT conversation_id, argMax(frustrated, version) AS frustrated, argMax(lazy, version) AS lazy, argMax(contradicted_claims, version) AS contradicted_claims
    FROM {{db}}.conversation_signals
    WHERE tenant_id = {tenant:String}
    GROUP BY conversation_id
) AS s ON s.conversation_id = a.conversation_id
WHERE a.node_id != ''
GROUP BY a.node_id
HAVING successful >= 1
ORDER BY successful DESC, node_id
LIMIT {limit:UInt32}
