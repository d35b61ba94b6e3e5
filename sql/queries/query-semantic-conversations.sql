-- Semantic conversation search: each conversation scored by its best segment's cosine similarity
-- to the query vector (unit vectors: the dot product), at least {floor}, best first. A brute-force
-- scan of the run's vectors (docs/analyses.md "Vectors and search" has the index measurement).
SELECT conversation_id, max(dotProduct(vector, {q:Array(Float32)})) AS sim
FROM {{db}}.segment_vectors FINAL
WHERE tenant_id = {tenant:String} AND run_id = {run:String}
GROUP BY conversation_id
HAVING sim >= {floor:Float32}
ORDER BY sim DESC, conversation_id
LIMIT {limit:UInt32}
