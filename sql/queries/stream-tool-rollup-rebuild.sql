-- Rebuilds the tool-failure rollup of one tenant ({tenant:String}) or of every tenant (tenant = '')
-- from tool_calls: for data written straight into tool_calls (bulk loads, tests) or to repair. The
-- facts it writes have no failure category (categories come from the analysis of conversations).
-- Statements run in order (split on ';'); versions v1 < v2 < v3 come from the caller. Existing
-- fact and daily rows are tombstoned (v1) and replaced by the fold of tool_calls (v2, v3); same
-- fold and columns as the 0060 migration's backfill and stream-tool-calls-fold.sql. The daily table
-- and the error table (small per tenant) are merged at the end so that
-- reads right after a bulk load do not merge three versions of every row.
INSERT INTO {{db}}.tool_call_facts (tenant_id, tool_name, failed, day, conversation_id, call_id, version, is_deleted, environment, effect_class, ts, error, error_type)
SELECT tenant_id, tool_name, failed, day, conversation_id, call_id, {v1:UInt64}, 1, environment, effect_class, ts, error, error_type
FROM {{db}}.tool_call_facts FINAL
WHERE {tenant:String} = '' OR tenant_id = {tenant:String};

INSERT INTO {{db}}.tool_call_facts (tenant_id, tool_name, failed, day, conversation_id, call_id, version, is_deleted, environment, effect_class, ts, error, error_type)
SELECT tenant_id, tool_name, toUInt8(success = 0), toDate(start), conversation_id, call_id, {v2:UInt64}, 0, environment, if(effect = '', 'unknown', effect), start, error, error_type
FROM (
    SELECT tenant_id, conversation_id, call_id, min(ts) AS start, max(tool_name) AS tool_name, max(success) AS success,
           max(environment) AS environment, max(effect_class) AS effect, max(error) AS error, max(error_type) AS error_type
    FROM {{db}}.tool_calls
    WHERE {tenant:String} = '' OR tenant_id = {tenant:String}
    GROUP BY tenant_id, conversation_id, call_id
);

INSERT INTO {{db}}.tool_call_rollup_state (tenant_id, conversation_id, call_id, version, tool_name, failed, day, environment, effect_class, ts, error, error_type)
SELECT tenant_id, conversation_id, call_id, {v2:UInt64}, tool_name, failed, day, environment, effect_class, ts, error, error_type
FROM {{db}}.tool_call_facts FINAL
WHERE {tenant:String} = '' OR tenant_id = {tenant:String};

INSERT INTO {{db}}.tool_failures_daily (tenant_id, day, environment, tool_name, effect_class, version, is_deleted, calls, failures, last_failure_at, failed_conversations, error_counts)
SELECT tenant_id, day, environment, tool_name, effect_class, {v1:UInt64}, 1, calls, failures, last_failure_at, failed_conversations, error_counts
FROM {{db}}.tool_failures_daily FINAL
WHERE {tenant:String} = '' OR tenant_id = {tenant:String};

INSERT INTO {{db}}.tool_failures_daily (tenant_id, day, environment, tool_name, effect_class, version, is_deleted, calls, failures, last_failure_at, failed_conversations, error_counts)
SELECT tenant_id, day, environment, tool_name, effect_class, {v3:UInt64}, 0, count(), countIf(failed = 1), maxIf(ts, failed = 1),
       uniqExactStateIf(conversation_id, failed = 1), mapFromArrays(arrayMap(x -> x.1, arraySlice(arraySort(x -> (-toInt64(x.2), x.1), arrayZip((sumMapIf([error], [toUInt64(1)], failed = 1 AND error != '') AS errs).1, errs.2)), 1, 10) AS top), arrayMap(x -> x.2, top))
FROM {{db}}.tool_call_facts FINAL
WHERE {tenant:String} = '' OR tenant_id = {tenant:String}
GROUP BY tenant_id, day, environment, tool_name, effect_class;

INSERT INTO {{db}}.tool_errors_daily (tenant_id, tool_name, day, environment, error, version, is_deleted, error_type, failures, last_seen, examples)
SELECT tenant_id, tool_name, day, environment, error, {v1:UInt64}, 1, error_type, failures, last_seen, examples
FROM {{db}}.tool_errors_daily FINAL
WHERE {tenant:String} = '' OR tenant_id = {tenant:String};

INSERT INTO {{db}}.tool_errors_daily (tenant_id, tool_name, day, environment, error, version, is_deleted, error_type, failures, last_seen, examples)
SELECT tenant_id, tool_name, day, environment, error, {v3:UInt64}, 0, argMax(error_type, ts), count(), max(ts),
       arraySlice(arrayReverseSort(x -> (x.3, x.1, x.2), groupArray((conversation_id, call_id, ts))), 1, 3)
FROM {{db}}.tool_call_facts FINAL
WHERE ({tenant:String} = '' OR tenant_id = {tenant:String}) AND failed = 1
GROUP BY tenant_id, tool_name, day, environment, error;

INSERT INTO {{db}}.tool_categories_daily (tenant_id, day, environment, tool_name, category_id, version, is_deleted, failures, last_seen, failed_conversations, example_error)
SELECT tenant_id, day, environment, tool_name, category_id, {v1:UInt64}, 1, failures, last_seen, failed_conversations, example_error
FROM {{db}}.tool_categories_daily FINAL
WHERE {tenant:String} = '' OR tenant_id = {tenant:String};

INSERT INTO {{db}}.tool_categories_daily (tenant_id, day, environment, tool_name, category_id, version, is_deleted, failures, last_seen, failed_conversations, example_error)
SELECT tenant_id, day, environment, tool_name, category_id, {v3:UInt64}, 0, count(), max(ts), uniqExactState(conversation_id), argMax(error, ts)
FROM {{db}}.tool_call_facts FINAL
WHERE ({tenant:String} = '' OR tenant_id = {tenant:String}) AND failed = 1 AND category_id != ''
GROUP BY tenant_id, day, environment, tool_name, category_id;

OPTIMIZE TABLE {{db}}.tool_failures_daily FINAL;

OPTIMIZE TABLE {{db}}.tool_errors_daily FINAL
