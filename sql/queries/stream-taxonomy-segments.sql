-- Every segment of a tenant with goal text, for a taxonomy build. The goal is the prefix of `text`
-- (the summary follows it), so only its length is read. Ordered by id: a build is deterministic.
SELECT item_key AS segment_id, conversation_id, text, length(goal) AS goal_len, text_hash
FROM {{db}}.segment_texts FINAL
WHERE tenant_id = {tenant:String} AND text != ''
ORDER BY item_key
