-- Segments not yet assigned in the current run at their current text: new segments, and segments
-- whose text changed as their conversation grew. At most {limit} per call.
SELECT t.item_key AS segment_id, t.conversation_id AS conversation_id, t.text AS text, length(t.goal) AS goal_len, t.text_hash AS text_hash
FROM {{db}}.segment_texts AS t FINAL
LEFT ANTI JOIN (
    SELECT segment_id, text_hash FROM {{db}}.cluster_assignments FINAL
    WHERE tenant_id = {tenant:String} AND run_id = {run:String}
) AS a ON a.segment_id = t.item_key AND a.text_hash = t.text_hash
WHERE t.tenant_id = {tenant:String} AND t.text != ''
ORDER BY t.item_key
LIMIT {limit:UInt32}
