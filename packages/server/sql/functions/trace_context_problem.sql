-- trace_context_problem: the W3C Trace Context checks of a pushed item's traceparent and tracestate for the SQL
-- API (the broker's own, with the same rules, are in src/core/trace-context.ts; docs/api.md 4.4).
--   Parameters: p_item one item of api_push_items (a JSON object).
--   Result: null when the item's context is valid or absent, else the problem as a suffix of the item's name
--     ('.traceparent must be ...'). Version 00 is exactly 55 characters; a later version may append '-'
--     fields; version ff and all-zero ids are invalid; a tracestate needs a traceparent, has at most 32
--     well-formed members and at most 512 characters.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.trace_context_problem(p_item jsonb) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN coalesce(jsonb_typeof(p_item -> 'traceparent'), 'null') NOT IN ('string', 'null')
      THEN '.traceparent must be a string'
    WHEN NOT (p_item ->> 'traceparent' ~ '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(-[0-9a-f-]*)?$')
         OR left(p_item ->> 'traceparent', 2) = 'ff'
         OR (left(p_item ->> 'traceparent', 2) = '00' AND length(p_item ->> 'traceparent') <> 55)
         OR substr(p_item ->> 'traceparent', 4, 32) = repeat('0', 32)
         OR substr(p_item ->> 'traceparent', 37, 16) = repeat('0', 16)
      THEN '.traceparent must be a W3C traceparent (00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>)'
    WHEN coalesce(jsonb_typeof(p_item -> 'tracestate'), 'null') NOT IN ('string', 'null')
      THEN '.tracestate must be a string'
    WHEN p_item ->> 'tracestate' IS NOT NULL AND p_item ->> 'traceparent' IS NULL
      THEN '.tracestate needs a traceparent'
    WHEN length(p_item ->> 'tracestate') > 512
         OR (SELECT count(*) FILTER (WHERE m.member <> '') > 32
                    OR bool_or(m.member <> '' AND m.member !~ ('^(?:[a-z0-9][_0-9a-z*/-]{0,255}|[a-z0-9][_0-9a-z*/-]{0,240}@[a-z][_0-9a-z*/-]{0,13})'
                                                           '=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$'))
             FROM (SELECT btrim(u.member, E' \t') AS member
                   FROM unnest(string_to_array(p_item ->> 'tracestate', ',')) AS u (member)) m)
      THEN '.tracestate must be a W3C tracestate (at most 32 key=value members, 512 characters)'
  END
$$;
