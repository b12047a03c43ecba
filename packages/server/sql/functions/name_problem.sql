-- name_problem: the name rule of docs/api.md 1.10 on the SQL side (the broker's own is core/names.ts): what
-- is wrong with p_name as a queue, partition, consumer group, namespace or task name. `.` and `..` are
-- refused because a URL path cannot carry them (clients resolve them away, docs/decisions.md "Dot names").
--   Parameters: p_name the value (null is not a name).
--   Result: null for a valid name, else the rest of an error message after the argument's name:
--     'must be a name of 1 to 255 characters' or 'must not be "." or ".."'.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.name_problem(p_name text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_name IS NULL OR length(p_name) NOT BETWEEN 1 AND 255 THEN 'must be a name of 1 to 255 characters'
              WHEN p_name IN ('.', '..') THEN 'must not be "." or ".."' END
$$;
