/**
 * The administrative reads and message admin on Citus (docs/scale-out.md section 10): the same sequence of pushes,
 * pops, acks and message admin is run against a broker on a Citus coordinator with two workers (QUEEN_CITUS=on)
 * and a broker on one PostgreSQL; every GET route the dashboard uses must answer 2xx on Citus with the same body as
 * on one PostgreSQL (counts, depths, lag), once identifiers that are random per run and times are blanked. Last, a
 * start-up that re-applies an original function file puts its Citus override back after it. The SQL API's depth()
 * and lag() are compared the same way.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { citusDatabase, useCitusCluster } from '../support/citus.js';
import { client, createDatabase, startBroker, type BrokerProcess, type Client, type TestDatabase } from '../support/harness.js';

const cluster = useCitusCluster(2);
const QUEUE = 'adm';
const PARTITIONS = Array.from({ length: 8 }, (_, i) => `p${i}`);

/** Values that differ between two runs of the same sequence: random v7 ids, times, durations, process names. */
const VOLATILE_KEY = /(At|Time|time|Seconds|seconds|Ms|timestamp|Activity|TimeLag|age|Age|oldest|newest|worker|serverId|hostname|uptime|from|to)$|^(id|pid|workerId|messageId|leaseId|traceId|newTransactionId|lastSeen|createdAt|pendingHistory|pointCount)$/;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d/;

/** Per-minute series: which minute a count falls in depends on when each run crossed a minute; their sums do not. */
const SERIES_KEY = /^(throughput|dataPoints)$/;

/** The sums of the numeric fields (nested ones included) over the points of a series. */
function sums(points: unknown[]): Record<string, unknown> {
  const total: Record<string, unknown> = {};
  for (const point of points) {
    for (const [k, v] of Object.entries(point as Record<string, unknown>)) {
      if (typeof v === 'number') total[k] = ((total[k] as number | undefined) ?? 0) + v;
      else if (v !== null && typeof v === 'object' && !Array.isArray(v)) total[k] = sums([total[k] ?? {}, v].filter((x) => Object.keys(x as object).length > 0));
    }
  }
  return total;
}

/**
 * The body with volatile values blanked and every array of objects sorted: partitions created by one push share
 * a creation time on one PostgreSQL (one transaction) and not on Citus (one call per partition), so listings
 * ordered by creation or segment time may order them differently; what they hold must be equal.
 */
function blank(value: unknown, key = ''): unknown {
  if (VOLATILE_KEY.test(key) && value !== null) return '<volatile>';
  if (SERIES_KEY.test(key) && Array.isArray(value)) return sums(value.map((point) => blank(point)));
  if (Array.isArray(value)) {
    const items = value.map((item) => blank(item));
    return items.every((item) => item !== null && typeof item === 'object')
      ? items.sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))) : items;
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, blank(v, k)]));
  }
  if (typeof value === 'string' && (UUID_V7.test(value) || ISO_TIME.test(value))) return '<volatile>';
  return value;
}

/** The same sequence on a broker: pushes over 8 partitions, pops and acks of every kind, leaving state to read. */
async function play(api: Client): Promise<Map<string, { partitionId: string; transactionId: string; leaseId: string }>> {
  const configured = await api.post('/api/v1/configure', { queue: QUEUE, namespace: 'shop', task: 'billing', options: { leaseTime: 300 } });
  assert.equal(configured.status, 200, configured.text);
  const items = PARTITIONS.flatMap((partition) => [1, 2, 3].map((n) => ({ queue: QUEUE, partition, transactionId: `${partition}-${n}`, payload: { partition, n } })));
  const pushed = await api.push(items);
  assert.equal(pushed.status, 201, pushed.text);
  const held = new Map<string, { partitionId: string; transactionId: string; leaseId: string }>();
  const pop = async (partition: string, batch: number, group?: string) => {
    const res = await api.get(`/api/v1/pop/queue/${QUEUE}/partition/${partition}?wait=false&batch=${batch}${group === undefined ? '' : `&consumerGroup=${group}`}`);
    assert.equal(res.status, 200, res.text);
    for (const m of res.json.messages) held.set(`${group ?? 'q'}:${m.transactionId}`, m);
    return res.json.messages as Array<{ partitionId: string; transactionId: string; leaseId: string }>;
  };
  const ack = async (messages: Array<{ partitionId: string; transactionId: string; leaseId: string }>, status: string, group?: string) => {
    const res = await api.post('/api/v1/ack/batch', { acknowledgments: messages.map((m) => ({ transactionId: m.transactionId,
      partitionId: m.partitionId, leaseId: m.leaseId, status, ...(status === 'failed' ? { error: 'bad payload' } : {}), ...(group === undefined ? {} : { consumerGroup: group }) })) });
    assert.equal(res.status, 200, res.text);
  };
  await ack(await pop('p0', 2), 'completed');
  await ack(await pop('p1', 3, 'g1'), 'completed', 'g1');
  await ack(await pop('p5', 1, 'g1'), 'completed', 'g1');
  await ack(await pop('p2', 1), 'dlq');
  await ack(await pop('p6', 1), 'dlq');
  await pop('p3', 2); // left leased
  return held;
}

const ROUTES = [
  '/api/v1/status', `/api/v1/status?queue=${QUEUE}`, '/api/v1/status/queues', `/api/v1/status/queues/${QUEUE}`,
  `/api/v1/status/queues/${QUEUE}/messages`, '/api/v1/status/analytics',
  '/api/v1/resources/overview', '/api/v1/resources/queues', `/api/v1/resources/queues/${QUEUE}`, '/api/v1/resources/partitions',
  `/api/v1/resources/partitions?queue=${QUEUE}&limit=3&offset=2`, '/api/v1/resources/namespaces', '/api/v1/resources/tasks',
  '/api/v1/consumer-groups', '/api/v1/consumer-groups/g1', '/api/v1/consumer-groups/__QUEUE_MODE__', '/api/v1/consumer-groups/lagging?minLagSeconds=0',
  '/api/v1/dlq', `/api/v1/dlq?queue=${QUEUE}`, '/api/v1/messages', `/api/v1/messages?queue=${QUEUE}&partition=p3`, `/api/v1/messages?queue=${QUEUE}&status=dead_letter`,
  '/api/v1/traces/names', '/api/v1/analytics/queue-lag', '/api/v1/analytics/queue-ops', '/api/v1/analytics/retention',
  '/api/v1/system/maintenance', '/api/v1/system/maintenance/pop', '/metrics/prometheus',
];
/** The database gauges of /metrics/prometheus are reused for min(5 s, the stats interval): read afresh after each step. */
const GAUGES_FRESH = { STATS_INTERVAL_MS: '200' };
/** Routes whose bodies describe the broker process or the database server, not the queues: 2xx only. */
const PROCESS_ROUTES = ['/api/v1/status/buffers', '/api/v1/system/shared-state', '/api/v1/analytics/system-metrics',
  '/api/v1/analytics/worker-metrics', '/api/v1/analytics/postgres-stats', '/api/v1/analytics/queue-parked-replicas', '/health', '/ready', '/metrics'];

describe('administrative reads on a Citus coordinator answer as on one PostgreSQL', () => {
  let dataDir = '';
  let citus: BrokerProcess;
  let single: BrokerProcess;
  let singleDb: TestDatabase;
  let onCitus: Client;
  let onSingle: Client;
  let held: Map<string, { partitionId: string; transactionId: string; leaseId: string }>;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-citus-admin-'));
    singleDb = await createDatabase();
    [citus, single] = await Promise.all([
      startBroker(citusDatabase(cluster), { ...GAUGES_FRESH, QUEEN_CITUS: 'on', QUEEN_DATA_DIR: path.join(dataDir, 'citus') }),
      startBroker(singleDb, { ...GAUGES_FRESH, QUEEN_DATA_DIR: path.join(dataDir, 'single') }),
    ]);
    onCitus = client(citus.url);
    onSingle = client(single.url);
    held = await play(onCitus);
    await play(onSingle);
  }, { timeout: 180_000 });
  after(async () => {
    await Promise.all([citus?.stop(), single?.stop()]);
    await singleDb?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Flushes both brokers' counters (the status series and analytics read them). */
  const refresh = async (): Promise<void> => {
    const answers = await Promise.all([onCitus.post('/api/v1/stats/refresh'), onSingle.post('/api/v1/stats/refresh')]);
    for (const res of answers) assert.equal(res.status, 200, res.text);
  };
  /** The database-derived gauges of the queue (pending, DLQ depth; the lag is a time). */
  const gauges = async (api: Client): Promise<string[]> => {
    const res = await fetch(`${api === onCitus ? citus.url : single.url}/metrics/prometheus`);
    assert.equal(res.status, 200);
    return (await res.text()).split('\n').filter((line) => /^queen_(queue_pending_messages|queue_dlq_depth|dlq_depth)\{/.test(line) && line.includes(`queue="${QUEUE}"`));
  };
  const compare = async (route: string): Promise<void> => {
    if (route === '/metrics/prometheus') {
      const [a, b] = await Promise.all([gauges(onCitus), gauges(onSingle)]);
      assert.ok(b.length > 0, 'one PostgreSQL reports gauges of the queue');
      return assert.deepEqual(a, b, route);
    }
    const [a, b] = await Promise.all([onCitus.get(route), onSingle.get(route)]);
    assert.equal(b.status, 200, `one PostgreSQL ${route}: ${b.text}`);
    assert.equal(a.status, 200, `Citus ${route}: ${a.text}`);
    assert.deepEqual(blank(a.json), blank(b.json), route);
  };

  test('every listing and status route answers the same JSON', async () => {
    const failures: string[] = [];
    await refresh();
    for (const route of ROUTES) await compare(route).catch((error: Error) => failures.push(`${route}: ${error.message.slice(0, 600)}`));
    // The pending history is a sample per minute, taken by the stats cycle whenever it runs: here, that it is taken.
    const sampled = await onCitus.get('/api/v1/status');
    if (!(sampled.json.pendingHistory.length > 0)) failures.push('/api/v1/status: no pending history sampled on Citus');
    for (const route of PROCESS_ROUTES) {
      const res = await onCitus.get(route);
      if (res.status >= 300) failures.push(`${route}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    assert.deepEqual(failures, []);
  });

  test('a message detail, its traces and its groups answer the same JSON', async () => {
    const m = held.get('q:p3-1')!;
    for (const route of [`/api/v1/messages/${m.partitionId}/${m.transactionId}`, `/api/v1/traces/${m.partitionId}/${m.transactionId}`,
      `/api/v1/messages/${m.partitionId}/nowhere`]) {
      const [a, b] = await Promise.all([onCitus.get(route), onSingle.get(route)]);
      assert.equal(a.status, b.status, `${route}: ${a.text}`);
      assert.deepEqual(blank(a.json), blank(b.json), route);
    }
  });

  test('message admin: delete, retry a DLQ entry, move to the DLQ, clear a partition; then the listings agree again', async () => {
    const dlq = held.get('q:p2-1')!;
    const steps: Array<[string, string, unknown?]> = [
      ['DELETE', `/api/v1/messages/${held.get('q:p0-1')!.partitionId}/p0-3`],
      ['POST', `/api/v1/messages/${dlq.partitionId}/${dlq.transactionId}/retry`, {}],
      ['POST', `/api/v1/messages/${held.get('q:p3-1')!.partitionId}/p3-3/dlq`, { error: 'moved by hand' }],
      ['DELETE', `/api/v1/messages/${held.get('q:p0-1')!.partitionId}/nowhere`],
      ['DELETE', `/api/v1/queues/${QUEUE}/clear?partition=p7`],
      ['DELETE', `/api/v1/queues/${QUEUE}/clear?partition=nowhere`],
    ];
    for (const [method, route, body] of steps) {
      const send = (api: Client) => (method === 'DELETE' ? api.del(route) : api.post(route, body));
      const a = await send(onCitus);
      const b = await send(onSingle);
      assert.equal(a.status, b.status, `${method} ${route}: Citus ${a.status} ${a.text} / one PostgreSQL ${b.status} ${b.text}`);
      assert.ok(a.status < 500, `${method} ${route}: ${a.text}`);
      assert.deepEqual(blank(a.json), blank(b.json), `${method} ${route}`);
    }
    const failures: string[] = [];
    await refresh();
    for (const route of ROUTES) await compare(route).catch((error: Error) => failures.push(`${route}: ${error.message.slice(0, 600)}`));
    assert.deepEqual(failures, []);
  });

  test('the SQL API counts, depth() and lag(), give the same figures; a refused name is the same clear error', async () => {
    const counts = `SELECT queen.depth($1) AS queue_mode, queen.depth($1, 'g1') AS g1, queen.lag($1, 'g1') AS lag_g1,
      queen.depth($1, 'never') AS never, queen.depth('nowhere') AS nowhere`;
    const [a, b] = await Promise.all([cluster.pool.query(counts, [QUEUE]), singleDb.query(counts, [QUEUE])]);
    assert.deepEqual(a.rows, b.rows);
    assert.ok(Number(a.rows[0]!.g1) > 0, 'g1 has messages left');
    const refused = (query: (text: string) => Promise<unknown>) => query(`SELECT queen.depth('')`).then(() => 'accepted', (e: Error) => e.message);
    assert.equal(await refused((text) => cluster.pool.query(text)), await refused((text) => singleDb.query(text)));
  });

  test('an original function re-applied at start-up gets its Citus override back after it', async () => {
    const language = async (): Promise<string> => (await cluster.pool.query<{ lang: string }>(
      `SELECT l.lanname AS lang FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE p.oid = 'queen.message_find(uuid, text)'::regprocedure`)).rows[0]!.lang;
    assert.equal(await language(), 'plpgsql');
    // As after an upgrade that changed message_find.sql: the next start-up re-applies the SQL-language original.
    await cluster.pool.query(`UPDATE queen.function_files SET checksum = 'changed' WHERE name = 'message_find.sql'`);
    await citus.stop();
    citus = await startBroker(citusDatabase(cluster), { ...GAUGES_FRESH, QUEEN_CITUS: 'on', QUEEN_DATA_DIR: path.join(dataDir, 'citus') });
    onCitus = client(citus.url);
    assert.equal(await language(), 'plpgsql');
    const m = held.get('q:p3-1')!;
    const res = await onCitus.get(`/api/v1/messages/${m.partitionId}/${m.transactionId}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.transactionId, 'p3-1');
  });
});
