-- The failure categories of a set of tenants (their error-template registries), for the analysis of
-- failed calls. Params: tenants Array(String).
SELECT tenant_id, category_id AS id, template, label, family, likely_cause, action_hint, tool_hint
FROM {{db}}.tool_failure_categories FINAL
WHERE tenant_id IN {tenants:Array(String)}
ORDER BY tenant_id, category_id
