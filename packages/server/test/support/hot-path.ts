/**
 * Direct calls of the hot-path SQL functions (queen.push_messages, queen.pop_messages, queen.ack_messages)
 * for the store-level tests, with the broker's argument shapes, and the helpers those tests use to tell a
 * statement that returned from one that waits on a lock.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import pg from 'pg';
import { uuidv7 } from '../../src/ids.js';
import { migrate } from '../../src/store/migrations.js';
export { partitionUuid } from '../../src/store/partition-id.js';
import { createDatabase, serverConnection, type TestDatabase } from './harness.js';

/** The consumer-group name of queue mode. */
export const QM = '__QUEUE_MODE__';

/** A connection, a session in a transaction, or a pool. */
export type Queryable = Pick<pg.ClientBase, 'query'> | pg.Pool;

/** One item of a push: queue, partition, transactionId and an optional payload (default `{tx}`). */
export interface PushItem {
  queue: string;
  partition: string;
  tx: string;
  payload?: unknown;
}

/** One row of push_messages. */
export interface PushRow {
  item: number;
  status: 'queued' | 'duplicate' | 'failed';
  message_id: string | null;
  partition_id: string;
  error: string | null;
}

/** Calls queen.push_messages; rows in item order. */
export async function push(on: Queryable, items: PushItem[]): Promise<PushRow[]> {
  const result = await on.query<PushRow>(
    `SELECT item, status, message_id::text AS message_id, partition_id::text AS partition_id, error
     FROM queen.push_messages($1::text[], $2::text[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::text[])`,
    [
      items.map((i) => i.queue),
      items.map((i) => i.partition),
      items.map(() => uuidv7()),
      items.map((i) => i.tx),
      items.map(() => null),
      items.map((i) => JSON.stringify(i.payload ?? { tx: i.tx })),
      items.map(() => null),
    ],
  );
  return [...result.rows].sort((a, b) => a.item - b.item);
}

/** One pop attempt: scope, target, group (default queue mode), budget and partition cap (default 10 and 1). */
export interface PopParams {
  scope: 'partition' | 'queue' | 'discovery';
  queue: string;
  partition?: string | null;
  group?: string;
  batch?: number;
  maxPartitions?: number;
  leaseId?: string;
  /** Overrides the queue's lease when > 0 (default 0: the queue's). */
  leaseSeconds?: number;
  autoAck?: boolean;
}

/** What a pop attempt gave: the empty reason or the delivered transactionIds and partitions. */
export interface PopOutcome {
  /** The empty reason, or null when messages were delivered. */
  reason: string | null;
  /** Delivered transactionIds, in the order returned. */
  txns: string[];
  partitions: string[];
  leaseId: string;
}

/** Calls queen.pop_messages (first attempt, no subscription intent, no hold). */
export async function pop(on: Queryable, p: PopParams): Promise<PopOutcome> {
  const leaseId = p.leaseId ?? uuidv7();
  const result = await on.query<{ transaction_id: string | null; partition_name: string | null; empty_reason: string | null }>(
    `SELECT transaction_id, partition_name, empty_reason
     FROM queen.pop_messages($1, $2, $3, $4, $5, $6, $7, $8, $9::uuid, $10, $11, $12, $13::timestamptz, $14, $15::uuid, $16)`,
    [p.scope, p.queue, p.partition ?? null, null, null, p.group ?? QM, p.batch ?? 10, p.maxPartitions ?? 1, leaseId, p.leaseSeconds ?? 0,
      p.autoAck ?? false, null, null, true, null, 0],
  );
  const first = result.rows[0];
  if (first === undefined) return { reason: 'none', txns: [], partitions: [], leaseId };
  if (first.empty_reason !== null) return { reason: first.empty_reason, txns: [], partitions: [], leaseId };
  return {
    reason: null,
    txns: result.rows.map((r) => r.transaction_id!),
    partitions: [...new Set(result.rows.map((r) => r.partition_name!))],
    leaseId,
  };
}

/** One ack item (status default completed, group default queue mode). */
export interface AckItem {
  tx: string;
  partitionId: string;
  status?: string;
  group?: string;
  leaseId?: string | null;
}

/** One row of ack_messages. */
export interface AckRow {
  item: number;
  success: boolean;
  error: string | null;
  lease_released: boolean;
  dlq: boolean;
}

/** Calls queen.ack_messages; rows in item order. */
export async function ack(on: Queryable, items: AckItem[]): Promise<AckRow[]> {
  const result = await on.query<AckRow>(
    `SELECT item, success, error, lease_released, dlq
     FROM queen.ack_messages($1::text[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[])`,
    [
      items.map((i) => i.tx),
      items.map((i) => i.partitionId),
      items.map((i) => i.status ?? 'completed'),
      items.map((i) => i.group ?? QM),
      items.map((i) => i.leaseId ?? null),
      items.map(() => null),
    ],
  );
  return [...result.rows].sort((a, b) => a.item - b.item);
}

/** Tracks whether a promise has settled, without swallowing its outcome. */
export function track<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return { promise, settled: () => settled };
}

/** Resolves with the value if the promise settles within `ms`, else with the marker 'blocked'. */
export async function settlesWithin<T>(promise: Promise<T>, ms: number): Promise<T | 'blocked'> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'blocked'>((resolve) => {
    timer = setTimeout(() => resolve('blocked'), ms);
  });
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** A migrated database for a store-level test file, a pool on it and dedicated sessions (useSqlSessions). */
export interface SqlSessions {
  readonly pool: pg.Pool;
  /** A dedicated connection (statement timeout 30 s: a hang fails instead of stalling) and its backend pid. */
  session(): Promise<{ client: pg.Client; pid: number }>;
  /** Resolves once session `waiter` waits on a lock held by session `holder` (pg_blocking_pids); fails after 10 s. */
  blockedBy(waiter: number, holder: number): Promise<void>;
  /** The SQLSTATE and message of a statement that must fail (the test fails if it succeeds). */
  failure(text: string, values?: unknown[]): Promise<{ code: string; message: string }>;
}

/**
 * Creates a fresh database with the broker's schema in `before` and drops its connections in `after`
 * (call at module level: it registers the node:test hooks).
 */
export function useSqlSessions(): SqlSessions {
  let db: TestDatabase | undefined;
  let pool: pg.Pool | undefined;
  const sessions: pg.Client[] = [];
  before(async () => {
    db = await createDatabase();
    pool = new pg.Pool({ ...serverConnection(db.name), max: 6, options: '-c TimeZone=UTC' } as pg.PoolConfig);
    await migrate(pool);
  });
  after(async () => {
    for (const s of sessions) await s.end().catch(() => undefined);
    await pool?.end();
    await db?.close();
  });
  const live = (): pg.Pool => {
    if (pool === undefined) throw new Error('useSqlSessions(): used before the `before` hook ran');
    return pool;
  };
  return {
    get pool() {
      return live();
    },
    async failure(text, values = []) {
      try {
        await live().query(text, values);
      } catch (error) {
        const e = error as { code: string; message: string };
        return { code: e.code, message: e.message };
      }
      return assert.fail(`expected ${text} to fail`);
    },
    async session() {
      const client = new pg.Client({ ...serverConnection(db!.name), options: '-c TimeZone=UTC -c statement_timeout=30000' } as pg.ClientConfig);
      await client.connect();
      client.on('error', () => undefined);
      sessions.push(client);
      const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      return { client, pid };
    },
    async blockedBy(waiter, holder) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const result = await live().query<{ blockers: number[] }>('SELECT pg_blocking_pids($1) AS blockers', [waiter]);
        if (result.rows[0]!.blockers.includes(holder)) return;
        if (Date.now() > deadline) assert.fail(`session ${waiter} never waited on session ${holder}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
}

