-- GET /emotions: counts over every detection matching the page's filters (query-emotions-page.sql),
-- in total, per family (with distinct conversations) and per signal, in one pass (GROUPING SETS);
-- and the frustration KPIs of the window from the per-conversation signals, defined as the
-- overview's (query-overview-kpis.sql): conversations whose last activity is in the window and that
-- have a user message; frustrated and at_risk as the signals analysis set them. Those rows carry
-- dim 'frustrations' with n = analyzed, conversations = frustrated, at_risk = at risk.
SELECT
    multiIf(grouping(signal) = 0, 'signal', grouping(family) = 0, 'family', 'total') AS dim,
    family,
    signal,
    count() AS n,
    uniqExact(conversation_id) AS conversations,
    toUInt64(0) AS at_risk
FROM (
    SELECT conversation_id, toString(family) AS family, toString(signal) AS signal
    FROM {{db}}.emotion_detections FINAL
    WHERE tenant_id = {tenant:String}
      AND ({conversation_id:String} = '' OR conversation_id = {conversation_id:String})
      AND ({family:String} = '' OR family = {family:String})
      AND ({signal:String} = '' OR signal = {signal:String})
      AND ({environment:String} = 'all' OR environment = {environment:String})
      AND message_ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
      AND score >= toFloat32({min_score:Float64})
)
GROUP BY GROUPING SETS ((family, signal), (family), ())
UNION ALL
SELECT 'frustrations', '', '', count(), countIf(frustrated = 1), countIf(at_risk = 1)
FROM {{db}}.conversation_signals FINAL
WHERE tenant_id = {tenant:String}
  AND ({conversation_id:String} = '' OR conversation_id = {conversation_id:String})
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND last_ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
  AND user_messages > 0
