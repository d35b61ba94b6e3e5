-- Recomputes the tool_failures_daily rows of a set of (tenant, tool, UTC day) groups from tool_call_facts
-- (the folded calls), replacing them: every group of those days gets a row of this version, and a
-- group that has no call any more is tombstoned (is_deleted = 1). One read of the facts: the fresh
-- aggregates are joined with the groups' stored rows (FULL JOIN), and a stored row the facts no
-- longer produce becomes the tombstone. Params: groups Array(Tuple(String, String, Date)) = (tenant,
-- tool, day), and the same as plain lists tenants, tools, days (for key and partition pruning);
-- version UInt64 (taken after the facts were written).
INSERT INTO {{db}}.tool_failures_daily (tenant_id, day, environment, tool_name, effect_class, version, is_deleted, calls, failures, last_failure_at, failed_conversations, error_counts)
SELECT tenant_id, day, environment, tool_name, effect_class, {version:UInt64}, 1 - f.present, f.calls, f.failures, f.last_failure_at, f.failed_conversations, f.error_counts
FROM
(
    SELECT
        tenant_id, day, environment, tool_name, effect_class,
        toUInt8(1) AS present,
        count() AS calls,
        countIf(failed = 1) AS failures,
        maxIf(ts, failed = 1) AS last_failure_at,
        uniqExactStateIf(conversation_id, failed = 1) AS failed_conversations,
        mapFromArrays(arrayMap(x -> x.1, arraySlice(arraySort(x -> (-toInt64(x.2), x.1), arrayZip((sumMapIf([error], [toUInt64(1)], failed = 1 AND error != '') AS errs).1, errs.2)), 1, 10) AS top), arrayMap(x -> x.2, top)) AS error_counts
    FROM {{db}}.tool_call_facts FINAL
    WHERE (tenant_id, tool_name, day) IN {groups:Array(Tuple(String, String, Date))}
      AND tenant_id IN {tenants:Array(String)} AND tool_name IN {tools:Array(String)} AND day IN {days:Array(Date)}
    GROUP BY tenant_id, day, environment, tool_name, effect_class
) AS f
FULL OUTER JOIN
(
    SELECT tenant_id, day, environment, tool_name, effect_class
    FROM {{db}}.tool_failures_daily FINAL
    WHERE (tenant_id, tool_name, day) IN {groups:Array(Tuple(String, String, Date))}
      AND tenant_id IN {tenants:Array(String)} AND tool_name IN {tools:Array(String)} AND day IN {days:Array(Date)}
) AS d USING (tenant_id, day, environment, tool_name, effect_class)
SETTINGS join_use_nulls = 0
