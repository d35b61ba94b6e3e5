-- GET /tool-failures and /tool-failures/:tool: calls and failures by tool, by effect class, by UTC
-- day and in total, in one pass (GROUPING SETS), from the daily rollup the stream role keeps
-- (tool_failures_daily, migration 0060): ≤ days × environments × tools × effect classes rows of the
-- tenant, whatever the number of calls. The window is whole UTC days: the day of {since_ms} and
-- every later day (a call belongs to the day of its start). Each row is the exact fold of its calls
-- (stream/analyze/tool-failures.ts); distinct failed conversations merge their per-day uniqExact
-- states, so they are exact across days. example_errors: the 3 most frequent texts of the window
-- over each day's 10 most frequent (like topK before: frequent, not guaranteed the exact top 3).
SELECT
    multiIf(grouping(tool) = 0, 'tool', grouping(effect) = 0, 'effect', grouping(day) = 0, 'day', 'total') AS dim,
    tool,
    effect,
    toString(day) AS day,
    sum(day_calls) AS calls,
    sum(day_failures) AS failures,
    uniqExactMerge(failed_conversations) AS conversations,
    uniqExactIf(tool, day_failures > 0) AS tools,
    max(last_failure_at) AS last_failure_at,
    arrayMap(x -> x.1, arraySlice(arraySort(x -> (-toInt64(x.2), x.1), arrayZip(mapKeys(sumMap(error_counts) AS errs), mapValues(errs))), 1, 3)) AS example_errors
FROM (
    SELECT tool_name AS tool, effect_class AS effect, day, calls AS day_calls, failures AS day_failures, last_failure_at, failed_conversations, error_counts
    FROM {{db}}.tool_failures_daily FINAL
    WHERE tenant_id = {tenant:String}
      AND day >= toDate(fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC'))
      AND ({environment:String} = 'all' OR environment = {environment:String})
      AND ({tool:String} = '' OR tool_name = {tool:String})
)
GROUP BY GROUPING SETS ((tool), (effect), (day), ())
