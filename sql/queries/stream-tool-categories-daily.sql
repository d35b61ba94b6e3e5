-- Recomputes the tool_categories_daily rows of a set of (tenant, tool, UTC day) groups from
-- tool_call_facts, like stream-tool-failures-daily.sql: one row per (day, environment, tool, failure
-- category) of the day's failed calls with its count, last start, distinct failed conversations and
-- the newest error text; a row without failed calls any more is tombstoned. Failed calls without a
-- category (stored before categories existed) are left out. Params: as stream-tool-failures-daily.sql.
INSERT INTO {{db}}.tool_categories_daily (tenant_id, day, environment, tool_name, category_id, version, is_deleted, failures, last_seen, failed_conversations, example_error)
WITH fresh AS (
    SELECT
        tenant_id, day, environment, tool_name, category_id,
        count() AS failures,
        max(ts) AS last_seen,
        uniqExactState(conversation_id) AS failed_conversations,
        argMax(error, ts) AS example_error
    FROM {{db}}.tool_call_facts FINAL
    WHERE (tenant_id, tool_name, day) IN {groups:Array(Tuple(String, String, Date))}
      AND tenant_id IN {tenants:Array(String)} AND tool_name IN {tools:Array(String)} AND day IN {days:Array(Date)}
      AND failed = 1 AND category_id != ''
    GROUP BY tenant_id, day, environment, tool_name, category_id
)
SELECT tenant_id, day, environment, tool_name, category_id, {version:UInt64}, 0, failures, last_seen, failed_conversations, example_error
FROM fresh
UNION ALL
SELECT tenant_id, day, environment, tool_name, category_id, {version:UInt64}, 1, failures, last_seen, failed_conversations, example_error
FROM {{db}}.tool_categories_daily FINAL
WHERE (tenant_id, tool_name, day) IN {groups:Array(Tuple(String, String, Date))}
      AND tenant_id IN {tenants:Array(String)} AND tool_name IN {tools:Array(String)} AND day IN {days:Array(Date)}
  AND (tenant_id, day, environment, tool_name, category_id) NOT IN (SELECT tenant_id, day, environment, tool_name, category_id FROM fresh)
