-- The memory of the users of an analysis batch (stream/analyses/user-memory.ts): one primary-key
-- read per batch. Params: users Array(Tuple(String, String)) = (tenant, user) pairs.
SELECT tenant_id, user_id, doc
FROM {{db}}.user_memory FINAL
WHERE (tenant_id, user_id) IN {users:Array(Tuple(String, String))}
