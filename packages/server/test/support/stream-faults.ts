/**
 * Fixtures of the exactly-once fault tests: worker processes running the official `Stream`
 * (streams-worker.mjs), a source whose every tumbling window is known in advance, the exact check of the sink,
 * and a way to hold a cycle inside the broker's transaction (the test holds the shard advisory locks, so a
 * cycle that reached the broker waits in `queen.streams_cycle_apply` until they are released).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { serverConnection, type Client, type TestDatabase } from './harness.js';
import { drainQueue, eventually, officialClientUrl } from './streams.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Partitions of a fault-test source, and messages per partition (10 per one-second window). */
export const PARTITIONS = ['p0', 'p1', 'p2', 'p3'];
const PER_PARTITION = 100;
const BASE = Date.UTC(2026, 0, 1);

/** A worker process. */
export interface Worker {
  process: ChildProcess;
  /** The JSON lines it printed. */
  lines(): Array<Record<string, unknown>>;
  /** The error texts it reported. */
  errors(): string[];
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a worker on `url`; resolves once its stream is running. */
export async function startWorker(params: { url: string; source: string; sink: string; queryId: string; slowFirstMs?: number }): Promise<Worker> {
  const child = spawn(process.execPath, ['--import', path.join(HERE, 'official-client.mjs'), path.join(HERE, 'streams-worker.mjs')], {
    env: {
      PATH: process.env.PATH ?? '', WORKER_CLIENT_URL: officialClientUrl(), WORKER_URL: params.url, WORKER_SOURCE: params.source,
      WORKER_SINK: params.sink, WORKER_QUERY_ID: params.queryId, WORKER_SLOW_FIRST_MS: String(params.slowFirstMs ?? 0),
      ...(process.env.QUEEN_COMPAT_DIR !== undefined ? { QUEEN_COMPAT_DIR: process.env.QUEEN_COMPAT_DIR } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = (): Array<Record<string, unknown>> => out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
  await eventually(`worker running (stderr: ${err.slice(0, 300)})`, 15_000, () => {
    if (child.exitCode !== null) throw new Error(`worker exited: ${err}`);
    return lines().some((l) => l.running === true);
  });
  return {
    process: child,
    lines,
    errors: () => lines().filter((l) => typeof l.error === 'string').map((l) => l.error as string),
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** One expected (or emitted) window. */
interface Window {
  count: number;
  sum: number;
}

/** A seeded source: the expected windows, and the second half of the input. */
export interface SeededSource {
  /** The expected windows by `partition@windowStart`. */
  expected: Map<string, Window>;
  /** Pushes the rest of the input (held back so that a fault can hit a stream already under way). */
  pushRest(): Promise<void>;
}

/**
 * Creates the source (leaseTime `leaseSeconds`) and pushes the first 30 of 100 messages per partition, event
 * times 100 ms apart; `pushRest` pushes the other 70 and one far-future message per partition whose watermark
 * closes every earlier window (its own window never closes).
 */
export async function seedSource(api: Client, queue: string, leaseSeconds = 2): Promise<SeededSource> {
  const configured = await api.post('/api/v1/configure', { queue, options: { leaseTime: leaseSeconds, retryLimit: 100 } });
  assert.equal(configured.status, 200, configured.text);
  const expected = new Map<string, Window>();
  const first: Array<{ queue: string; partition: string; payload: unknown }> = [];
  const rest: typeof first = [];
  PARTITIONS.forEach((partition, p) => {
    for (let i = 0; i < PER_PARTITION; i++) {
      const t = BASE + i * 100;
      const v = 1 + ((i * 7 + p * 13) % 50);
      (i < 30 ? first : rest).push({ queue, partition, payload: { t, v } });
      const key = `${partition}@${BASE + Math.floor(i / 10) * 1000}`;
      const w = expected.get(key) ?? { count: 0, sum: 0 };
      expected.set(key, { count: w.count + 1, sum: w.sum + v });
    }
    rest.push({ queue, partition, payload: { t: BASE + 1_000_000, v: 0 } });
  });
  const push = async (items: typeof first): Promise<void> => {
    const pushed = await api.push(items);
    assert.equal(pushed.status, 201, pushed.text);
  };
  await push(first);
  return { expected, pushRest: () => push(rest) };
}

/**
 * Waits until every partition of the query has a stored watermark. (The official runner caches the watermark
 * in memory and advances it before the commit; when the very first cycle of a partition fails, nothing stored
 * resets that cache and the redelivered batch is dropped as late: an upstream client limitation, so the
 * faults here strike streams already under way.)
 */
export async function watermarksStored(db: TestDatabase, queryId: string): Promise<void> {
  await eventually('a watermark on every partition', 10_000, async () =>
    (await db.query(`SELECT 1 FROM queen_streams.state WHERE query_id = $1 AND key = '__wm__'`, [queryId])).rowCount === PARTITIONS.length);
}

/** Waits until every expected window reached the sink, then checks each exactly: nothing lost, nothing twice. */
export async function assertExactlyOnce(api: Client, sink: string, expected: Map<string, Window>, ms = 30_000): Promise<void> {
  const out = await eventually(`all ${expected.size} windows in ${sink}`, ms, async () => {
    const all = await drainQueue(api, sink);
    const keys = new Set(all.map((m) => `${m.data.partition}@${m.data.windowStart}`));
    return [...expected.keys()].every((k) => keys.has(k)) ? all : undefined;
  });
  await new Promise((r) => setTimeout(r, 500)); // a late duplicate would arrive now
  const settled = await drainQueue(api, sink);
  assert.ok(settled.length >= out.length);
  const seen = new Map<string, Window[]>();
  for (const m of settled) {
    const key = `${m.data.partition}@${m.data.windowStart}`;
    seen.set(key, [...(seen.get(key) ?? []), { count: m.data.count, sum: m.data.sum }]);
  }
  const duplicated = [...seen].filter(([, list]) => list.length > 1).map(([k]) => k);
  assert.deepEqual(duplicated, [], 'no window emitted twice');
  assert.deepEqual(Object.fromEntries([...seen].map(([k, [w]]) => [k, w]).sort()), Object.fromEntries([...expected].sort()));
}

/** The server-side id of a registered query, once the worker registered it. */
export async function queryIdOf(db: TestDatabase, name: string): Promise<string> {
  return eventually(`query ${name} registered`, 10_000, async () =>
    (await db.query<{ id: string }>('SELECT id::text AS id FROM queen_streams.queries WHERE name = $1', [name])).rows[0]?.id);
}

/** Holds the shard locks of a query over every partition of its source, from a session of its own. */
export async function holdShards(database: TestDatabase | pg.ClientConfig, queryId: string, source: string): Promise<{ waiting(): Promise<number>; release(): Promise<void> }> {
  const session = new pg.Client('name' in database ? serverConnection(database.name) : database);
  session.on('error', () => undefined);
  await session.connect();
  const keys = (await session.query<{ key: string }>(
    `SELECT queen.streams_shard_lock_key($1::uuid, p.id)::text AS key FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $2`,
    [queryId, source])).rows.map((r) => r.key);
  for (const key of keys) await session.query('SELECT pg_advisory_lock($1::bigint)', [key]);
  return {
    /** Sessions waiting for one of these locks (cycles held inside the broker). */
    async waiting() {
      const rows = await session.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks l
          WHERE l.locktype = 'advisory' AND NOT l.granted
            AND ((l.classid::bigint << 32) | l.objid::bigint) = ANY ($1::bigint[])`, [keys]);
      return rows.rows[0]!.n;
    },
    async release() {
      await session.end().catch(() => undefined);
    },
  };
}

/**
 * Runs `fault` with a cycle of the query held inside the broker's transaction: once every partition has a stored
 * watermark, holds the shard locks, pushes the rest of the input and waits for a cycle to wait on them; the
 * locks are released after `fault` (also when it throws).
 */
export async function duringHeldCycle(
  db: TestDatabase,
  params: { queryName: string; source: string; pushRest: () => Promise<void>; session?: pg.ClientConfig },
  fault: () => Promise<void>,
): Promise<void> {
  const id = await queryIdOf(db, params.queryName);
  await watermarksStored(db, id);
  const shards = await holdShards(params.session ?? db, id, params.source);
  try {
    await params.pushRest();
    await eventually('a cycle waiting inside the broker', 10_000, async () => (await shards.waiting()) > 0);
    await fault();
  } finally {
    await shards.release();
  }
}
