/**
 * Fixtures shared by the transaction, message, DLQ and queue-clear suites: push, pop and ack over HTTP, and
 * reads of the stored state (cursors, DLQ entries) the assertions compare against.
 */
import assert from 'node:assert/strict';
import type { client, TestDatabase } from './harness.js';

/** The reserved queue-mode group. */
export const QUEUE_MODE = '__QUEUE_MODE__';
/** A lowercase UUIDv7. */
export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** A millisecond timestamp with a literal Z. */
export const MILLIS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Api = ReturnType<typeof client>;

/** Stored state of one (partition, group). */
export interface CursorRow {
  committed: number;
  retry_count: number;
  lease_id: string | null;
  live: boolean;
}

/** Helpers bound to one broker and its database. */
export function messaging(api: Api, db: TestDatabase) {
  const popPath = (queue: string, partition?: string): string =>
    partition === undefined
      ? `/api/v1/pop/queue/${encodeURIComponent(queue)}`
      : `/api/v1/pop/queue/${encodeURIComponent(queue)}/partition/${encodeURIComponent(partition)}`;

  return {
    /** Pushes `${prefix}-1..count` (payload {n}) to one partition in one request; returns the partition id. */
    async push(queue: string, partition: string, count: number, prefix = 'm'): Promise<string> {
      const items = Array.from({ length: count }, (_, i) => ({ queue, partition, transactionId: `${prefix}-${i + 1}`, payload: { n: i + 1 } }));
      const res = await api.push(items);
      assert.equal(res.status, 201, res.text);
      for (const r of res.json) assert.equal(r.status, 'queued', JSON.stringify(r));
      return res.json[0].partition_id as string;
    },

    /** A pop that must deliver (single-partition route when `partition` is given); returns the body. */
    async popOk(queue: string, partition?: string, params = ''): Promise<any> {
      const res = await api.get(`${popPath(queue, partition)}?${params}`);
      assert.equal(res.status, 200, `expected a delivery, got ${res.status} ${res.headers.get('x-queen-empty-reason')}`);
      return res.json;
    },

    /** A pop that must deliver nothing. */
    async popEmpty(queue: string, partition?: string, params = ''): Promise<void> {
      const res = await api.get(`${popPath(queue, partition)}?${params}`);
      assert.equal(res.status, 204, `expected nothing, got ${res.status} ${res.text}`);
    },

    /** POST /api/v1/ack; returns the single result. */
    async ack(body: Record<string, unknown>): Promise<any> {
      const res = await api.post('/api/v1/ack', body);
      assert.equal(res.status, 200, res.text);
      return res.json[0];
    },

    /** POST /api/v1/configure with the given options. */
    async configure(queue: string, options: Record<string, unknown>): Promise<void> {
      const res = await api.post('/api/v1/configure', { queue, options });
      assert.equal(res.status, 200, res.text);
    },

    /** The stored cursor of (partition, group), or undefined when never contacted. */
    async cursor(partitionId: string, group = QUEUE_MODE): Promise<CursorRow | undefined> {
      const res = await db.query<CursorRow>(
        `SELECT committed::int AS committed, retry_count, lease_id::text AS lease_id,
                coalesce(lease_expires_at > now(), false) AS live
           FROM queen.cursors WHERE partition_id = $1 AND consumer_group = $2`,
        [partitionId, group],
      );
      return res.rows[0];
    },

    /** DLQ rows of a partition, oldest first. */
    async deadLetters(partitionId: string): Promise<Array<{ consumer_group: string; transaction_id: string; error_message: string; retry_count: number }>> {
      const res = await db.query(
        'SELECT consumer_group, transaction_id, error_message, retry_count FROM queen.dead_letters WHERE partition_id = $1 ORDER BY id',
        [partitionId],
      );
      return res.rows as never;
    },

    /** The transactionIds of the retained messages of a partition, in offset order. */
    async retained(partitionId: string): Promise<string[]> {
      const res = await db.query<{ txn: string }>(
        `SELECT m.txn FROM queen.segments s CROSS JOIN LATERAL unnest(s.transaction_ids) WITH ORDINALITY AS m (txn, n)
          WHERE s.partition_id = $1 ORDER BY s.first_offset + m.n`,
        [partitionId],
      );
      return res.rows.map((r) => r.txn);
    },

    /** Number of queue rows with this name (implicit creation leaves one). */
    async queueExists(name: string): Promise<boolean> {
      const res = await db.query('SELECT 1 FROM queen.queues WHERE name = $1', [name]);
      return res.rowCount === 1;
    },

    /** Polls `check` every 10 ms until it holds; fails after 5 s. A condition wait, not a timed sleep. */
    async until(what: string, check: () => Promise<boolean>): Promise<void> {
      const started = Date.now();
      while (!(await check())) {
        if (Date.now() - started > 5000) throw new Error(`${what} did not happen within 5 s`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },

    /**
     * Waits until a long-poll pop on a queue that did not exist has made its first attempt: that attempt
     * creates the queue row (docs/api.md 5.5), and the pop parks right after it.
     */
    async untilQueueCreated(name: string): Promise<void> {
      await this.until(`creation of queue ${name}`, () => this.queueExists(name));
    },
  };
}
