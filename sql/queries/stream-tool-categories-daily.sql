-- Recomputes the tool_categories_daily rows of a set of (tenant, tool, UTC day) groups from
-- tool_call_facts, like stream-tool-failures-daily.sql (one read of the facts, joined with the groups'
-- stored rows): one row per (day, environment, tool, failure category) of the day's failed calls with
-- its count, last start, distinct failed conversations and the newest error text; a stored row
-- without failed calls any more is tombstoned. Failed calls without a category (stored before
-- categories existed) are left out. Params: as stream-tool-failures-daily.sql.
INSERT INTO {{db}}.tool_categories_daily (tenant_id, day, environment, tool_name, category_id, version, is_deleted, failures, last_seen, failed_conversations, example_error)
SELECT tenant_id, day, environment, tool_name, category_id, {version:UInt64}, 1 - f.present, f.failures, f.last_seen, f.failed_conversations, f.example_error
FROM
(
    SELECT
        tenant_id, day, environment, tool_name, category_id,
        toUInt8(1) AS present,
        count() AS failures,
        max(ts) AS last_seen,
        uniqExactState(conversation_id) AS failed_conversations,
        argMax(error, ts) AS example_error
    FROM {{db}}.tool_call_facts FINAL
    WHERE (tenant_id, tool_name, day) IN {groups:Array(Tuple(String, String, Date))}
      AND tenant_id IN {tenants:Array(String)} AND tool_name IN {tools:Array(String)} AND day IN {days:Array(Date)}
      AND failed = 1 AND category_id != ''
    GROUP BY tenant_id, day, environment, tool_name, category_id
) AS f
FULL OUTER JOIN
(
    SELECT tenant_id, day, environment, tool_name, category_id
    FROM {{db}}.tool_categories_daily FINAL
    WHERE (tenant_id, tool_name, day) IN {groups:Array(Tuple(String, String, Date))}
      AND tenant_id IN {tenants:Array(String)} AND tool_name IN {tools:Array(String)} AND day IN {days:Array(Date)}
) AS d USING (tenant_id, day, environment, tool_name, category_id)
SETTINGS join_use_nulls = 0
