/**
 * Fixtures for the consumer-group, seek, resource and trace suites: pushes and pops over HTTP, and the
 * stored state they assert on (cursors, subscription records, segment times) read or set through SQL.
 */
import assert from 'node:assert/strict';
import type { TestDatabase, TestResponse, client } from './harness.js';

/** A client bound to one broker. */
export type Api = ReturnType<typeof client>;

/** Pushes `ids` (transactionIds) to one partition in one request: one segment. */
export async function pushIds(api: Api, queue: string, partition: string, ids: string[]): Promise<void> {
  const res = await api.push(ids.map((id) => ({ queue, partition, transactionId: id, payload: { id } })));
  assert.equal(res.status, 201, res.text);
  for (const item of res.json) assert.equal(item.status, 'queued', JSON.stringify(item));
}

/** The transactionIds of a 200 pop (asserting it is one). */
export function popped(res: TestResponse<any>): string[] {
  assert.equal(res.status, 200, `expected a 200 pop, got ${res.status} ${res.text}`);
  return res.json.messages.map((m: { transactionId: string }) => m.transactionId);
}

/** Asserts a bodiless 204 pop. */
export function assertNoMessages(res: TestResponse<any>): void {
  assert.equal(res.status, 204, `expected 204, got ${res.status} ${res.text}`);
  assert.equal(res.text, '');
}

/** The stored cursor of (queue, partition, group), or null when the pair was never contacted. */
export async function cursorOf(
  db: TestDatabase,
  queue: string,
  partition: string,
  group: string,
): Promise<{ committed: number; lease_id: string | null; live: boolean; retry_count: number; not_before: Date | null } | null> {
  const rows = await db.query(
    `SELECT c.committed::integer AS committed, c.lease_id, coalesce(c.lease_expires_at > now(), false) AS live,
            c.retry_count, c.not_before
     FROM queen.cursors c JOIN queen.partitions p ON p.id = c.partition_id JOIN queen.queues q ON q.id = p.queue_id
     WHERE q.name = $1 AND p.name = $2 AND c.consumer_group = $3`,
    [queue, partition, group],
  );
  return (rows.rows[0] as any) ?? null;
}

/** The subscription records of a group, as `[queue, scope, mode, timestamp in ms with Z]`. */
export async function recordsOf(db: TestDatabase, group: string): Promise<Array<[string, string, string, string]>> {
  const rows = await db.query(
    `SELECT q.name, s.partition_name, s.mode, queen.format_millis(s.subscribed_from) AS at
     FROM queen.subscriptions s JOIN queen.queues q ON q.id = s.queue_id
     WHERE s.consumer_group = $1 ORDER BY q.name, s.partition_name`,
    [group],
  );
  return rows.rows.map((r) => [r.name, r.partition_name, r.mode, r.at]);
}

/**
 * Sets the createdAt of the segments of (queue, partition) holding the given transactionIds (all of them when
 * none are given): to `at` (ISO text), or to now minus `at` seconds when `at` is a number. Returns the
 * stored value in milliseconds with a Z.
 */
export async function setSegmentTime(db: TestDatabase, queue: string, partition: string, at: string | number, ids?: string[]): Promise<string> {
  // The time first, then the update: Citus refuses a non-IMMUTABLE function (now(), format_millis) inside COALESCE,
  // CASE or RETURNING of a distributed UPDATE.
  const time = await db.query(
    `SELECT t.at::text AS at, queen.format_millis(t.at) AS millis
     FROM (SELECT coalesce($1::timestamptz, now() - make_interval(secs => $2::integer)) AS at) t`,
    [typeof at === 'string' ? at : null, typeof at === 'number' ? at : null]);
  const rows = await db.query(
    `UPDATE queen.segments s
     SET created_at = $3::timestamptz
     FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
     WHERE s.partition_id = p.id AND q.name = $1 AND p.name = $2
       AND ($4::text[] IS NULL OR s.transaction_ids && $4::text[])
     RETURNING s.partition_id`,
    [queue, partition, time.rows[0]!.at, ids ?? null],
  );
  assert.ok(rows.rows.length > 0, `no segment of ${queue}/${partition} matched`);
  return time.rows[0]!.millis;
}

/** The id of a stored message. */
export async function messageIdOf(db: TestDatabase, queue: string, partition: string, transactionId: string): Promise<string> {
  const rows = await db.query(
    `SELECT s.message_ids[k.message_offset - s.first_offset + 1] AS id
     FROM queen.message_keys k JOIN queen.partitions p ON p.id = k.partition_id JOIN queen.queues q ON q.id = p.queue_id
     JOIN queen.segments s ON s.partition_id = k.partition_id AND k.message_offset BETWEEN s.first_offset AND s.last_offset
     WHERE q.name = $1 AND p.name = $2 AND k.transaction_id = $3`,
    [queue, partition, transactionId],
  );
  assert.equal(rows.rows.length, 1, `message ${transactionId} not found`);
  return rows.rows[0]!.id;
}

/** The id of a partition. */
export async function partitionIdOf(db: TestDatabase, queue: string, partition: string): Promise<string> {
  const rows = await db.query(
    'SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND p.name = $2',
    [queue, partition],
  );
  assert.equal(rows.rows.length, 1, `partition ${queue}/${partition} not found`);
  return rows.rows[0]!.id;
}

/**
 * Starts a long-poll pop of `group` on one partition and resolves once its first attempt has run (so it is
 * parked, or about to): the attempt writes a partition-scoped subscription record, which the fixture waits
 * for. The group must have contacted the partition already (so the record changes nothing) and have no
 * record for the queue. The response is wrapped: a promise resolved with a promise would wait for it.
 */
export async function parkedPop(db: TestDatabase, api: Api, queue: string, partition: string, group: string, timeoutMs = 10_000): Promise<{ response: Promise<TestResponse<any>> }> {
  const pending = api.get(`/api/v1/pop/queue/${queue}/partition/${partition}?consumerGroup=${group}&subscriptionMode=new&wait=true&timeout=${timeoutMs}`);
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    assert.ok(Date.now() < giveUpAt, 'the pop never made its first attempt');
    const rows = await db.query(
      `SELECT 1 FROM queen.subscriptions s JOIN queen.queues q ON q.id = s.queue_id
       WHERE q.name = $1 AND s.consumer_group = $2 AND s.partition_name = $3`,
      [queue, group, partition],
    );
    if (rows.rows.length > 0) return { response: pending };
    await new Promise((resolve) => setImmediate(resolve));
  }
}
