-- metrics_gauges: the database-derived gauges of GET /metrics/prometheus, in one statement.
--   Parameters: none.
--   Every (partition, group) of the groups known on a queue (a cursor on any of its partitions, or a
--     subscription record) counts, a partition the group has not touched at the offset it will start from
--     (cursor_seed), as the counts of docs/api.md 7.2 and the lag of 7.7 do.
--   queues: [{queue, pending, dlqDepth}] for every queue. pending = retained messages above the partition's
--     reference cursor (docs/api.md 7.2: queue mode's, else the lowest named group's, else 0), that is 7.2's
--     pending + processing; reads one segment index entry per partition with a backlog.
--   lags: [{queue, group, seconds}] per known (queue, group): the largest age over its partitions of the
--     oldest retained message above its position (0 when caught up); one index entry per backlogged pair.
--   leasesActive: distinct live lease ids.
--   Result: one jsonb object {queues, lags, leasesActive}.
--   Locks: none (one snapshot read).
CREATE OR REPLACE FUNCTION queen.metrics_gauges() RETURNS jsonb
LANGUAGE sql STABLE AS $$
  WITH known AS (
    SELECT DISTINCT p.queue_id, c.consumer_group AS grp
    FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id
    UNION
    SELECT s.queue_id, s.consumer_group FROM queen.subscriptions s
  ), positions AS (
    -- (COALESCE stops at the cursor: cursor_seed runs only for the partitions a group has not touched.)
    SELECT p.id, p.queue_id, p.tail, k.grp,
           coalesce(c.committed, queen.cursor_seed(p.queue_id, p.id, p.name, k.grp)) AS committed
    FROM queen.partitions p
    JOIN known k ON k.queue_id = p.queue_id
    LEFT JOIN queen.cursors c ON c.partition_id = p.id AND c.consumer_group = k.grp
  ), reference AS (
    SELECT p.id, p.queue_id, p.tail,
           coalesce(max(po.committed) FILTER (WHERE po.grp = '__QUEUE_MODE__'), min(po.committed), 0) AS committed
    FROM queen.partitions p
    LEFT JOIN positions po ON po.id = p.id
    GROUP BY p.id
  ), pending AS (
    SELECT r.queue_id,
           sum(CASE WHEN r.tail > r.committed
                    THEN greatest(0, r.tail - greatest(r.committed, coalesce(head.first_offset, r.tail + 1) - 1))
                    ELSE 0 END) AS pending
    FROM reference r
    LEFT JOIN LATERAL (
      SELECT s.first_offset FROM queen.segments s
      WHERE s.partition_id = r.id AND r.tail > r.committed
      ORDER BY s.last_offset LIMIT 1
    ) head ON true
    GROUP BY r.queue_id
  ), dlq AS (
    SELECT p.queue_id, count(*) AS depth
    FROM queen.dead_letters d JOIN queen.partitions p ON p.id = d.partition_id
    GROUP BY p.queue_id
  ), lags AS (
    SELECT q.name AS queue, po.grp AS "group",
           max(coalesce(extract(epoch FROM now() - head.created_at), 0)) AS seconds
    FROM positions po
    JOIN queen.queues q ON q.id = po.queue_id
    LEFT JOIN LATERAL (
      SELECT s.created_at FROM queen.segments s
      WHERE s.partition_id = po.id AND s.last_offset > po.committed AND po.tail > po.committed
      ORDER BY s.last_offset LIMIT 1
    ) head ON true
    GROUP BY q.name, po.grp
  )
  SELECT jsonb_build_object(
    'queues', coalesce((
      SELECT jsonb_agg(jsonb_build_object('queue', q.name, 'pending', coalesce(pe.pending, 0),
                                          'dlqDepth', coalesce(d.depth, 0)))
      FROM queen.queues q
      LEFT JOIN pending pe ON pe.queue_id = q.id
      LEFT JOIN dlq d ON d.queue_id = q.id), '[]'::jsonb),
    'lags', coalesce((SELECT jsonb_agg(jsonb_build_object('queue', l.queue, 'group', l."group", 'seconds', l.seconds))
                      FROM lags l), '[]'::jsonb),
    'leasesActive', (SELECT count(DISTINCT c.lease_id) FROM queen.cursors c WHERE c.lease_expires_at > now()))
$$;
