-- Conversations with an investigation report, per problem of one run: attributions of fast-lane rows
-- (no report_id) do not count, nor do report ids with no stored report.
SELECT problem_id, uniqExact(conversation_id) AS n
FROM {{db}}.problem_attributions
WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND problem_id IN {ids:Array(String)}
  AND report_id != ''
  AND report_id IN (
    SELECT report_id FROM {{db}}.problem_reports
    WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND problem_id IN {ids:Array(String)}
  )
GROUP BY problem_id
