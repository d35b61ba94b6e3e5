-- Conversations of one tenant that some analyzer has not analyzed at its current version (never
-- analyzed, or analyzed by an older version): what a version change recomputes. Outcomes of the
-- current version count as done, failed ones included (they are retried by their own jobs).
-- Params: tenant String, current Array(Tuple(String, UInt32)) = (analyzer, version), limit UInt32.
SELECT c.conversation_id AS conversation_id, count() OVER () AS pending
FROM
(
    SELECT conversation_id FROM {{db}}.conversations FINAL WHERE tenant_id = {tenant:String}
) AS c
LEFT JOIN
(
    SELECT conversation_id, groupArray((analyzer, analyzer_version)) AS done
    FROM {{db}}.analysis_state FINAL
    WHERE tenant_id = {tenant:String}
    GROUP BY conversation_id
) AS s ON s.conversation_id = c.conversation_id
WHERE NOT hasAll(s.done, {current:Array(Tuple(String, UInt32))})
ORDER BY c.conversation_id
LIMIT {limit:UInt32}
SETTINGS join_use_nulls = 0
