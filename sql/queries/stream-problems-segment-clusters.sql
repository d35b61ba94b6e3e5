-- The use-case cluster of every assigned segment in a taxonomy run, with the cluster's label.
SELECT a.segment_id AS segment_id, a.node_id AS node_id, n.label AS label
FROM {{db}}.cluster_assignments AS a FINAL
INNER JOIN
(
    SELECT node_id, any(label) AS label
    FROM {{db}}.cluster_nodes
    WHERE tenant_id = {tenant:String} AND run_id = {run:String}
    GROUP BY node_id
) AS n ON n.node_id = a.node_id
WHERE a.tenant_id = {tenant:String} AND a.run_id = {run:String} AND a.node_id != ''
