-- backlog_rebuild_every: how old the entries of a (queue, group) registered with the backlog index may get
-- before wildcard pops rebuild them from the partitions, a slice per pop (backlog_prepare): with the sweep
-- itself, the longest an entry missing for any reason can delay a message.
--   Parameters: none.
--   Result: the interval.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.backlog_rebuild_every() RETURNS interval
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT interval '30 seconds'
$$;
