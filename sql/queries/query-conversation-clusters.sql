-- The cluster of each listed conversation in the run: the leaf holding most of its segments, ties
-- by the higher mean similarity, then the greater node id (docs/analyses.md "Use-case taxonomy").
SELECT conversation_id, argMax(node_id, (n, sim, node_id)) AS node_id
FROM (
    SELECT conversation_id, node_id, count() AS n, avg(similarity) AS sim
    FROM {{db}}.cluster_assignments FINAL
    WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND node_id != ''
      AND conversation_id IN {conversations:Array(String)}
    GROUP BY conversation_id, node_id
)
GROUP BY conversation_id
