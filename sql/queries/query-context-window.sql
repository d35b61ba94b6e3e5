-- GET /conversations/:id/context: messages in [center - w, center + w]. Message index is the
-- zero-based row number in (ts, seq, message_id) order; the centre defaults to the middle
-- (floor((n-1)/2)) and is clamped to the last message.
SELECT idx, total, role, content, content_blocks, tool_calls, tool_results, ts
FROM (
    SELECT
        role, content, content_blocks, tool_calls, tool_results, ts,
        toInt64(row_number() OVER (ORDER BY ts, seq, message_id)) - 1 AS idx,
        toInt64(count() OVER ()) AS total
    FROM {{db}}.messages FINAL
    WHERE tenant_id = {tenant:String} AND conversation_id = {id:String}
)
WHERE abs(idx - if({has_index:UInt8} = 1, least({msg_index:Int64}, total - 1), intDiv(total - 1, 2))) <= {window:Int64}
ORDER BY idx
