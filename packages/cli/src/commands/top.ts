/**
 * Top-level commands that read the broker's state (docs/cli.md): `ping`, `version`, `status`, `lag`, `metrics`,
 * `lease extend` and `docs`. Table columns follow docs/cli.md (our broker's field names).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { QueenError } from '@queen/client';
import { action, int, sub } from '../command.js';
import { versionLine } from '../version.js';
import { serverError, toCliError, userError } from '../errors.js';
import { arrayAt, type Column, type View } from '../output.js';
import type { Runtime } from '../runtime.js';
import { parseDuration } from '../time.js';
import * as broker from '@queen/client/api';
import { found } from '../api.js';
import { byName } from './queues.js';

/** Columns of `lag` and `cg list` (operation listConsumerGroups). */
export const GROUP_VIEW: View<broker.ConsumerGroupRow[], broker.ConsumerGroupRow> = {
  rows: (b) => arrayAt(b),
  columns: [
    { header: 'CG', value: (r) => r.name },
    { header: 'QUEUE', value: (r) => r.queueName },
    { header: 'MESSAGES', value: (r) => r.totalLag, kind: 'count' },
    { header: 'LAG', value: (r) => r.maxTimeLag, kind: 'seconds' },
    { header: 'STATE', value: (r) => r.state },
    { header: 'PARTITIONS', value: (r) => r.members, wide: true },
    { header: 'SUBSCRIBED', value: (r) => r.subscriptionTimestamp ?? r.subscriptionMode, wide: true },
  ],
};

/** Columns of `lag --min-seconds` (operation listLaggingConsumerGroups). */
export const LAGGING_VIEW: View<broker.LaggingRow[], broker.LaggingRow> = {
  rows: (b) => arrayAt(b),
  columns: [
    { header: 'CG', value: (r) => r.consumer_group },
    { header: 'QUEUE', value: (r) => r.queue_name },
    { header: 'PARTITION', value: (r) => r.partition_name },
    { header: 'MESSAGES', value: (r) => r.offset_lag, kind: 'count' },
    { header: 'LAG', value: (r) => r.time_lag_seconds, kind: 'seconds' },
    { header: 'OLDEST', value: (r) => r.oldest_unconsumed_at, kind: 'time', wide: true },
  ],
};

/** `lag` / `cg lag` / `cg list`: every group, or the lagging partitions with `--min-seconds` > 0. */
export async function printLag(rt: Runtime, minSeconds: number): Promise<void> {
  const api = await rt.api();
  if (minSeconds > 0) await rt.out.print(await broker.listLaggingConsumerGroups(api.http(), { minLagSeconds: minSeconds }), LAGGING_VIEW);
  else await rt.out.print(await broker.listConsumerGroups(api.http()), GROUP_VIEW);
}

/** One row of `status`: a queue's counts (failed and DLQ null when not fetched), its lag, its partition count. */
interface StatusRow {
  queue: string;
  namespace: string | null | undefined;
  task: string | null | undefined;
  pending: number | undefined;
  processing: number | undefined;
  completed: number | undefined;
  failed: number | null | undefined;
  dlq: number | null | undefined;
  lag?: number;
  partitions?: number | undefined;
}

const STATUS_COLUMNS: Column<StatusRow>[] = [
  { header: 'QUEUE', value: (r) => r.queue },
  { header: 'NAMESPACE', value: (r) => r.namespace },
  { header: 'TASK', value: (r) => r.task, wide: true },
  { header: 'PENDING', value: (r) => r.pending, kind: 'count' },
  { header: 'PROCESSING', value: (r) => r.processing, kind: 'count' },
  { header: 'COMPLETED', value: (r) => r.completed, kind: 'count' },
  { header: 'FAILED', value: (r) => r.failed, kind: 'count' },
  { header: 'DLQ', value: (r) => r.dlq, kind: 'count' },
  { header: 'LAG', value: (r) => r.lag, kind: 'seconds' },
];

const DETAIL_LIMIT = 50;

/** Runs `fn` over `items` with at most `n` in flight. */
async function pool<T, R>(items: T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  }));
  return out;
}

async function clusterStatus(rt: Runtime, opts: { namespace?: string; task?: string }): Promise<void> {
  const api = await rt.api();
  const [overview, list, groups] = await Promise.all([
    broker.getOverview(api.http()),
    broker.listQueueStatus(api.http(), { namespace: opts.namespace, task: opts.task, limit: 1000 }),
    broker.listConsumerGroups(api.http()),
  ]);
  const lag = new Map<string, number>();
  for (const g of arrayAt(groups) as Array<{ queueName: string; maxTimeLag: number }>) lag.set(g.queueName, Math.max(lag.get(g.queueName) ?? 0, g.maxTimeLag ?? 0));
  const queues = arrayAt(list, 'queues') as Array<{ name: string; namespace: string; task: string; messages: { total: number; pending: number; processing: number } }>;
  // Failed and DLQ counts exist only per queue: fetched for up to DETAIL_LIMIT queues, else shown as '-'.
  const details = queues.length <= DETAIL_LIMIT ? await pool(queues, 8, (q) => broker.getQueueStatus(api.http(), q.name).then(found, () => undefined)) : [];
  const rows = queues.map((q, i) => {
    const t = details[i]?.totals?.messages;
    return {
      queue: q.name,
      namespace: q.namespace,
      task: q.task,
      pending: t?.pending ?? q.messages.pending,
      processing: t?.processing ?? q.messages.processing,
      completed: t?.completed ?? Math.max(0, q.messages.total - q.messages.pending - q.messages.processing),
      failed: t?.failed ?? null,
      dlq: t?.deadLetter ?? null,
      lag: lag.get(q.name) ?? 0,
    };
  });
  const body = { overview, queues: rows };
  if (rt.out.format.kind === 'table' || rt.out.format.kind === 'wide') {
    const m = overview.messages ?? {};
    const n = (x: unknown) => (typeof x === 'number' ? x.toLocaleString('en-US') : '-');
    rt.out.done(rt.out.bold(`queues ${n(overview.queues)}  partitions ${n(overview.partitions)}  messages ${n(m.total)}  pending ${n(m.pending)}  processing ${n(m.processing)}  dlq ${n(m.deadLetter)}  in ${overview.throughput?.ingestedPerSecond ?? 0}/s  out ${overview.throughput?.processedPerSecond ?? 0}/s`));
    rt.out.done('');
  }
  await rt.out.print(body, { rows: (b) => b.queues, columns: STATUS_COLUMNS });
}

async function queueStatus(rt: Runtime, queue: string, partitions: boolean): Promise<void> {
  const api = await rt.api();
  const body = found(await broker.getQueueStatus(api.http(), queue));
  const t = body.totals?.messages ?? {};
  const row = { queue: body.queue?.name ?? queue, namespace: body.queue?.namespace, task: body.queue?.task, pending: t.pending, processing: t.processing, completed: t.completed, failed: t.failed, dlq: t.deadLetter, partitions: body.totals?.partitions };
  if (!partitions) {
    await rt.out.print(body, { rows: () => [row], columns: [...STATUS_COLUMNS.filter((c) => c.header !== 'LAG'), { header: 'PARTITIONS', value: (r) => r.partitions, kind: 'count' }] });
    return;
  }
  await rt.out.print(body, {
    rows: (b) => byName(arrayAt(b, 'partitions')),
    columns: [
      { header: 'PARTITION', value: (r) => r.name },
      { header: 'PENDING', value: (r) => r.messages?.pending, kind: 'count' },
      { header: 'PROCESSING', value: (r) => r.messages?.processing, kind: 'count' },
      { header: 'COMPLETED', value: (r) => r.messages?.completed, kind: 'count' },
      { header: 'FAILED', value: (r) => r.messages?.failed, kind: 'count' },
      { header: 'DLQ', value: (r) => r.messages?.deadLetter, kind: 'count' },
      { header: 'ACTIVITY', value: (r) => r.lastActivity, kind: 'time', wide: true },
    ],
  });
}

async function health(rt: Runtime, timeoutMillis: number): Promise<{ body: Record<string, unknown>; latencyMs: number }> {
  const api = await rt.api();
  const started = performance.now();
  try {
    const body = await broker.health(api.queen, { timeoutMillis, signal: rt.signal });
    return { body: { ...body }, latencyMs: performance.now() - started };
  } catch (error) {
    // A 503 /health still carries the health body (docs/api.md §4.1).
    if (error instanceof QueenError && error.status === 503 && error.body && typeof error.body === 'object') return { body: error.body as Record<string, unknown>, latencyMs: performance.now() - started };
    throw toCliError(error, { method: broker.routes.health.method, path: broker.routes.health.path });
  }
}

const DOC_TOPICS: Record<string, string> = {
  cli: 'the queenctl command reference',
  client: 'the TypeScript client SDK',
  operations: 'authentication, maintenance, the failover buffer, retention, encryption',
  monitoring: 'metrics, status and analytics routes',
  'consumer-groups': 'groups, subscription modes, lag, replay with seek',
  dlq: 'the dead-letter queue',
  transactions: 'exactly-once hand-off between queues in one transaction',
  configuration: 'every environment variable of the broker',
  architecture: 'how the broker is built',
};

/** The repository's docs/ folder next to this package, when installed from the repository. */
function docsDir(): string | undefined {
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs');
  return fs.existsSync(dir) ? dir : undefined;
}

/** Registers the top-level read commands. */
export function registerTop(program: Command): void {
  action(sub(program, 'ping', 'Check that the broker and its database are healthy (GET /health)', 'queenctl ping --timeout 2s')
    .option('--timeout <duration>', 'how long to wait', '5s'), async (rt, opts) => {
    const { body, latencyMs } = await health(rt, parseDuration(opts.timeout, '--timeout'));
    const row = { status: body.status, database: body.database, version: body.version, latencyMs: Math.round(latencyMs), server: (await rt.connection()).server };
    await rt.out.print({ ...body, latencyMs: row.latencyMs }, {
      rows: () => [row],
      columns: [
        { header: 'STATUS', value: (r) => r.status },
        { header: 'DATABASE', value: (r) => r.database },
        { header: 'VERSION', value: (r) => r.version },
        { header: 'LATENCY', value: (r) => `${r.latencyMs}ms` },
        { header: 'SERVER', value: (r) => r.server, wide: true },
      ],
    });
    if (body.status !== 'healthy' || (body.database !== undefined && body.database !== 'connected')) throw serverError(`unhealthy: status=${String(body.status)} database=${String(body.database)}`);
  });

  action(sub(program, 'version', 'Print the CLI version, then the server, its health and the context', ['queenctl version', 'queenctl version --short'])
    .option('--short', 'only the CLI version line'), async (rt, opts) => {
    if (opts.short) return rt.out.write(`${versionLine()}\n`);
    const conn = await rt.connection();
    const { body } = await health(rt, 5000);
    const info = { client: versionLine(), server: conn.server, serverVersion: body.version ?? null, status: body.status ?? null, database: body.database ?? null, context: conn.context ?? null };
    if (rt.out.explicit) return rt.out.print(info);
    rt.out.write(`${info.client}\nserver:   ${info.server} (${String(info.serverVersion ?? '?')})\nstatus:   ${String(info.status)}\ndatabase: ${String(info.database)}\ncontext:  ${info.context ?? '-'}\n`);
  });

  action(sub(program, 'status [queue]', 'Message counts per queue (with a queue: its totals, or its partitions with --partitions)', ['queenctl status', 'queenctl status orders --partitions'])
    .option('--namespace <ns>', 'only queues of this namespace')
    .option('--task <task>', 'only queues of this task')
    .option('--partitions', 'with a queue: one row per partition'), async (rt, opts, queue) => {
    if (queue) await queueStatus(rt, queue, Boolean(opts.partitions));
    else await clusterStatus(rt, opts);
  });

  action(sub(program, 'lag', 'Consumer-group lag per queue (or the partitions lagging at least --min-seconds)', ['queenctl lag', 'queenctl lag --min-seconds 300'])
    .option('--min-seconds <n>', 'only partitions at least this far behind', int, 0), async (rt, opts) => printLag(rt, opts.minSeconds));

  action(sub(program, 'metrics', 'Broker metrics: the JSON summary, or Prometheus text with --prometheus', ['queenctl metrics', 'queenctl metrics --prometheus | grep queen_pop'])
    .option('--prometheus', 'Prometheus exposition text, verbatim'), async (rt, opts) => {
    const api = await rt.api();
    if (opts.prometheus) {
      rt.out.write(await broker.prometheusMetrics(api.http()));
      return;
    }
    await rt.out.print(await broker.metrics(api.http()), { describe: true });
  });

  const lease = sub(program, 'lease', 'Lease commands', 'queenctl lease extend 0198f2d3-1b2c-7a00-8c11-5e6f708192a3');
  action(sub(lease, 'extend <leaseId>', 'Extend a lease (operation extendLease)', 'queenctl lease extend 0198f2d3-1b2c-7a00-8c11-5e6f708192a3 --seconds 120')
    .option('--seconds <n>', 'new lease length from now (broker default 60)', int), async (rt, opts, leaseId) => {
    const api = await rt.api();
    const body = await broker.extendLease(api.http(), leaseId!, opts.seconds !== undefined ? { seconds: opts.seconds } : {});
    const result = body[0];
    if (!result?.success) throw serverError(`lease extend failed: ${result?.error ?? 'no result'}`);
    await rt.out.result(`renewed ${leaseId} -> ${result.newExpiresAt}`, body);
  });

  action(sub(program, 'docs', 'Print where the documentation is; --open opens it', ['queenctl docs', 'queenctl docs --topic dlq --open'])
    .option('--open', 'open the page in a browser or viewer')
    .option('--topic <name>', `one page: ${Object.keys(DOC_TOPICS).join(', ')}`), async (rt, opts) => {
    const dir = docsDir();
    const where = (topic: string) => (dir ? path.join(dir, `${topic}.md`) : `docs/${topic}.md in the Queen repository`);
    if (opts.topic !== undefined && !(opts.topic in DOC_TOPICS)) throw userError(`unknown topic "${opts.topic}" (topics: ${Object.keys(DOC_TOPICS).join(', ')})`);
    if (opts.open) {
      const target = where(opts.topic ?? 'cli');
      if (!dir) throw userError(`no local documentation found; read ${target}`);
      const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
      await new Promise<void>((resolve, reject) => {
        const child = spawn(opener, [target], { stdio: 'ignore', detached: true });
        child.once('error', () => reject(userError(`cannot run ${opener} to open ${target}`)));
        child.once('spawn', () => {
          child.unref();
          resolve();
        });
      });
      return rt.out.done(`opened ${target}`);
    }
    const topics = opts.topic ? [opts.topic as string] : Object.keys(DOC_TOPICS);
    for (const t of topics) rt.out.write(`${t.padEnd(16)}${where(t)}  (${DOC_TOPICS[t]})\n`);
  });
}
