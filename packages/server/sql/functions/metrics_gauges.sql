-- metrics_gauges: the database-derived gauges of GET /metrics/prometheus, in one statement.
--   Parameters: none.
--   queues: [{queue, pending, dlqDepth}] for every queue. pending = retained messages above the partition's
--     reference cursor (docs/api.md 7.2: queue mode's, else the lowest named group's, else 0), that is 7.2's
--     pending + processing; reads one segment index entry per partition with a backlog.
--   lags: [{queue, group, seconds}] per contacted (queue, group): the largest age over its partitions of the
--     oldest retained message above the cursor (0 when caught up); one index entry per backlogged cursor.
--   leasesActive: distinct live lease ids.
--   Result: one jsonb object {queues, lags, leasesActive}.
--   Locks: none (one snapshot read).
CREATE OR REPLACE FUNCTION queen.metrics_gauges() RETURNS jsonb
LANGUAGE sql STABLE AS $$
  WITH reference AS (
    SELECT p.id, p.queue_id, p.tail,
           coalesce(max(c.committed) FILTER (WHERE c.consumer_group = '__QUEUE_MODE__'), min(c.committed), 0) AS committed
    FROM queen.partitions p
    LEFT JOIN queen.cursors c ON c.partition_id = p.id
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
    SELECT q.name AS queue, c.consumer_group AS "group",
           max(coalesce(extract(epoch FROM now() - head.created_at), 0)) AS seconds
    FROM queen.cursors c
    JOIN queen.partitions p ON p.id = c.partition_id
    JOIN queen.queues q ON q.id = p.queue_id
    LEFT JOIN LATERAL (
      SELECT s.created_at FROM queen.segments s
      WHERE s.partition_id = c.partition_id AND s.last_offset > c.committed AND p.tail > c.committed
      ORDER BY s.last_offset LIMIT 1
    ) head ON true
    GROUP BY q.name, c.consumer_group
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
