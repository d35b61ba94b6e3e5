-- Evidence rows of one problem in one run by attribution id.
SELECT attribution_id, conversation_id, segment_id, anchor_signal_id, anchor_msg_index, signal_kind, signal_family, signal_type,
       confidence, causal_rationale, door, replay_verified, evidence_snippet, snippet, dedup_count, user_id, signal_ts, assigned_at, report_id
FROM {{db}}.problem_attributions
WHERE tenant_id = {tenant:String} AND run_id = {run:String} AND problem_id = {problem:String} AND attribution_id IN {ids:Array(String)}
