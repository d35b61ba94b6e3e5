-- GET /tool-failures and /tool-failures/:tool: the failure categories of the window's failed calls,
-- from the per-category daily rollup (tool_categories_daily, migration 0080: one row per tenant,
-- day, environment, tool and category, recomputed with the other daily rows; read with FINAL, which
-- drops the rows of groups without failures any more), joined with the workspace's category registry
-- (tool_failure_categories) for label, family, cause and hint. Window: whole UTC days from the day
-- of {since_ms}, as query-tool-failures-stats.sql. Distinct conversations merge the per-day
-- uniqExact states (exact across days and tools; the merge is most of the cost). Tools: failures
-- summed per tool name (sumMap), most first, then name. Every category of the window comes back
-- (the caller lists the first ones and sums all of them per family); a category missing from the
-- registry answers with empty texts and family 'other'.
WITH per_category AS (
    SELECT
        category_id,
        sum(failures) AS category_failures,
        uniqExactMerge(failed_conversations) AS category_conversations,
        sumMap([tool_name], [failures]) AS per_tool,
        arrayMap(x -> x.2, arraySort(x -> (-toInt64(x.1), x.2), arrayZip(per_tool.2, per_tool.1))) AS category_tools,
        max(last_seen) AS category_last_seen,
        argMax(example_error, last_seen) AS category_example
    FROM {{db}}.tool_categories_daily FINAL
    WHERE tenant_id = {tenant:String}
      AND day >= toDate(fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC'))
      AND ({environment:String} = 'all' OR environment = {environment:String})
      AND ({tool:String} = '' OR tool_name = {tool:String})
    GROUP BY category_id
),
registry AS (
    SELECT category_id, label, toString(family) AS family, likely_cause, action_hint
    FROM {{db}}.tool_failure_categories FINAL
    WHERE tenant_id = {tenant:String}
)
SELECT
    c.category_id AS category_id,
    r.label AS label,
    if(r.family = '', 'other', r.family) AS family,
    r.likely_cause AS likely_cause,
    r.action_hint AS action_hint,
    c.category_failures AS failures,
    c.category_conversations AS conversations,
    c.category_tools AS tools,
    c.category_last_seen AS last_seen,
    c.category_example AS example_error
FROM per_category AS c
LEFT JOIN registry AS r ON r.category_id = c.category_id
WHERE {family:String} = '' OR if(r.family = '', 'other', r.family) = {family:String}
ORDER BY failures DESC, last_seen DESC, category_id
