-- GET /emotions: counts over every detection matching the page's filters (query-emotions-page.sql):
-- per signal, and per family with its distinct conversations (the count of (family, conversation)
-- groups: one hash aggregation, instead of a uniqExact set at every level of GROUPING SETS, which
-- measured 1.5–3× slower); the total is the sum over families. And the frustration KPIs of the
-- window from the per-conversation signals, defined as the overview's (query-overview-kpis.sql):
-- conversations whose last activity is in the window and that have a user message; frustrated and
-- at_risk as the signals analysis set them (dim 'frustrations': n = analyzed, conversations =
-- frustrated, at_risk = at risk). The filters are written out per branch (ClickHouse inlines CTEs).
SELECT 'signal' AS dim, toString(family) AS family, toString(signal) AS signal, count() AS n, toUInt64(0) AS conversations, toUInt64(0) AS at_risk
FROM {{db}}.emotion_detections FINAL
WHERE tenant_id = {tenant:String}
  AND ({conversation_id:String} = '' OR conversation_id = {conversation_id:String})
  AND ({family:String} = '' OR family = {family:String})
  AND ({signal:String} = '' OR signal = {signal:String})
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND message_ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
  AND score >= toFloat32({min_score:Float64})
GROUP BY family, signal
UNION ALL
SELECT 'family', family, '', sum(per_conversation), count(), toUInt64(0)
FROM (
    SELECT toString(family) AS family, conversation_id, count() AS per_conversation
    FROM {{db}}.emotion_detections FINAL
    WHERE tenant_id = {tenant:String}
      AND ({conversation_id:String} = '' OR conversation_id = {conversation_id:String})
      AND ({family:String} = '' OR family = {family:String})
      AND ({signal:String} = '' OR signal = {signal:String})
      AND ({environment:String} = 'all' OR environment = {environment:String})
      AND message_ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
      AND score >= toFloat32({min_score:Float64})
    GROUP BY family, conversation_id
)
GROUP BY family
UNION ALL
SELECT 'frustrations', '', '', count(), countIf(frustrated = 1), countIf(at_risk = 1)
FROM {{db}}.conversation_signals FINAL
WHERE tenant_id = {tenant:String}
  AND ({conversation_id:String} = '' OR conversation_id = {conversation_id:String})
  AND ({environment:String} = 'all' OR environment = {environment:String})
  AND last_ts >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
  AND user_messages > 0
