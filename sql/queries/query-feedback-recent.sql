-- Latest general feedback records of a tenant (operations and tests; POST /feedback writes with Store.insert).
SELECT feedback_id, submitted_at, category, severity FROM {{db}}.feedback WHERE tenant_id = {tenant:String} ORDER BY submitted_at DESC LIMIT {limit:UInt32}
