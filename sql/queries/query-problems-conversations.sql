-- Conversations of one problem in one run (optionally one signal family / door), newest anchor first.
SELECT conversation_id,
       any(user_id) AS user_id,
       count() AS attribution_count,
       groupArray(signal_family) AS families,
       groupArray(dedup_count) AS counts,
       min(signal_ts) AS first_anchor_at,
       max(signal_ts) AS last_anchor_at,
       argMax(segment_id, (signal_ts, anchor_msg_index)) AS latest_segment,
       argMax(anchor_signal_id, (signal_ts, anchor_msg_index)) AS latest_signal,
       argMax(anchor_msg_index, (signal_ts, anchor_msg_index)) AS latest_msg
FROM {{db}}.problem_attributions
WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND problem_id = {problem:String}
  AND ({family:String} = '' OR signal_family = {family:String})
  AND ({door:String} = '' OR door = {door:String})
GROUP BY conversation_id
HAVING {has_after:UInt8} = 0 OR last_anchor_at < {after_ts:DateTime64(3, 'UTC')} OR (last_anchor_at = {after_ts:DateTime64(3, 'UTC')} AND conversation_id > {after_conv:String})
ORDER BY last_anchor_at DESC, conversation_id ASC
LIMIT {limit:UInt32}
