-- Investigation reports of one problem in one run, by conversation, after a keyset position.
SELECT report_id, conversation_id, doc
FROM {{db}}.problem_reports
WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND problem_id = {problem:String}
  AND ({has_after:UInt8} = 0 OR (conversation_id, report_id) > ({after_conv:String}, {after_id:String}))
ORDER BY conversation_id, report_id
LIMIT {limit:UInt32}
