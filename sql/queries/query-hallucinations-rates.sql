-- GET /hallucinations: the exact number of findings matching the page's filters
-- (query-hallucinations-page.sql), and the claim counts of the per-conversation signals, which
-- include unverified claims (never stored per message): conversations whose last activity is in
-- the window. One row each: dim 'findings' (a = total) and dim 'rates'.
SELECT 'findings' AS dim, count() AS a, toUInt64(0) AS b, toUInt64(0) AS c, toUInt64(0) AS d, toUInt64(0) AS e
FROM {{db}}.hallucination_findings FINAL
WHERE tenant_id = {tenant:String}
  AND ({conversation_id:String} = '' OR conversation_id = {conversation_id:String})
  AND ({verdict:String} = '' OR verdict = {verdict:String})
  AND ({claim_type:String} = '' OR claim_type = {claim_type:String})
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND message_ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
UNION ALL
SELECT 'rates', sum(claims), sum(verified_claims), sum(contradicted_claims), sum(unverified_claims), countIf(contradicted_claims > 0)
FROM {{db}}.conversation_signals FINAL
WHERE tenant_id = {tenant:String}
  AND ({conversation_id:String} = '' OR conversation_id = {conversation_id:String})
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND last_ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
