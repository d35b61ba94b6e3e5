-- Semantic anchor search (GET /search): segments by cosine similarity to the query vector, with
-- their message range, restricted like the keyword search (conversation, user, environment).
SELECT v.conversation_id AS conversation_id, v.segment_id AS segment_id, v.sim AS sim, s.start_index AS start_index, s.end_index AS end_index
FROM (
    SELECT conversation_id, segment_id, dotProduct(vector, {q:Array(Float32)}) AS sim
    FROM {{db}}.segment_vectors FINAL
    WHERE tenant_id = {tenant:String} AND run_id = {run:String}
      AND ({conversation_id:String} = '' OR conversation_id = {conversation_id:String})
      AND (({user_id:String} = '' AND {environment:String} = 'all') OR conversation_id IN (
          SELECT conversation_id FROM {{db}}.conversations FINAL
          WHERE tenant_id = {tenant:String}
            AND ({user_id:String} = '' OR user_id = {user_id:String})
            AND ({environment:String} = 'all' OR environment = {environment:String})
      ))
    ORDER BY sim DESC, segment_id
    LIMIT {limit:UInt32}
) AS v
INNER JOIN (
    SELECT item_key, start_index, end_index FROM {{db}}.conversation_segments FINAL WHERE tenant_id = {tenant:String}
) AS s ON s.item_key = v.segment_id
WHERE v.sim >= {floor:Float32}
ORDER BY sim DESC, segment_id
