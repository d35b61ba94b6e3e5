-- Event and message aggregates of a set of conversations (of any tenants) for the conversation
-- rollup, recomputed from the deduplicated source tables in one pass (tool counts come from the
-- paired calls of the analysis), with the summary written last (kept when a summary run fails);
-- every read is a primary-key lookup on (tenant_id, conversation_id).
-- Params: keys Array(Tuple(String, String)) = (tenant, conversation) pairs. One row per
-- conversation that has at least one event (a conversation without events has nothing to roll up).
SELECT
    e.tenant_id AS tenant_id,
    e.conversation_id AS conversation_id,
    e.events AS events,
    e.environment AS environment,
    e.user_id AS user_id,
    e.agent AS agent,
    m.message_count AS message_count,
    least(e.first_ts, if(m.message_count > 0, m.first_ts, e.first_ts)) AS first_ts,
    greatest(e.last_ts, if(m.message_count > 0, m.last_ts, e.last_ts)) AS last_ts,
    m.input_tokens + e.api_input_tokens AS input_tokens,
    m.output_tokens + e.api_output_tokens AS output_tokens,
    e.cost_usd AS cost_usd,
    e.api_requests AS api_request_count,
    e.api_errors AS api_error_count,
    m.threads AS thread_count,
    s.summary AS summary
FROM
(
    SELECT
        tenant_id,
        conversation_id,
        count() AS events,
        min(event_time) AS first_ts,
        max(event_time) AS last_ts,
        argMax(environment, event_time) AS environment,
        argMaxIf(user_id, event_time, user_id != '') AS user_id,
        argMin(agent, event_time) AS agent,
        -- Token usage: api_request events (Claude Code; gen_ai.usage.* when an agent sends it),
        -- else the completed-response stream events, where Codex reports it (*_token_count on
        -- codex.sse_event response.completed). Never both, so one response is not counted twice.
        sumIf(input_tokens, type = 'api_request') + sumIf(output_tokens, type = 'api_request') > 0 AS api_has_tokens,
        if(api_has_tokens, sumIf(input_tokens, type = 'api_request'), sumIf(input_tokens, type = 'stream_event')) AS api_input_tokens,
        if(api_has_tokens, sumIf(output_tokens, type = 'api_request'), sumIf(output_tokens, type = 'stream_event')) AS api_output_tokens,
        sumIf(cost_usd, type = 'api_request') AS cost_usd,
        countIf(type = 'api_request') AS api_requests,
        countIf(type = 'api_error') AS api_errors
    FROM {{db}}.events FINAL
    WHERE (tenant_id, conversation_id) IN {keys:Array(Tuple(String, String))}
    GROUP BY tenant_id, conversation_id
) AS e
LEFT JOIN
(
    SELECT
        tenant_id,
        conversation_id,
        count() AS message_count,
        min(ts) AS first_ts,
        max(ts) AS last_ts,
        sum(input_tokens) AS input_tokens,
        sum(output_tokens) AS output_tokens,
        uniqExactIf(thread_id, thread_id != '') AS threads
    FROM {{db}}.messages FINAL
    WHERE (tenant_id, conversation_id) IN {keys:Array(Tuple(String, String))}
    GROUP BY tenant_id, conversation_id
) AS m ON m.tenant_id = e.tenant_id AND m.conversation_id = e.conversation_id
LEFT JOIN
(
    SELECT tenant_id, conversation_id, summary
    FROM {{db}}.conversation_summaries FINAL
    WHERE (tenant_id, conversation_id) IN {keys:Array(Tuple(String, String))}
) AS s ON s.tenant_id = e.tenant_id AND s.conversation_id = e.conversation_id
SETTINGS join_use_nulls = 0, max_threads = 1
