/** `status` (docs/cli.md): message counts per queue, or one queue's totals or partitions. */
import type { Command } from 'commander';
import { action, sub } from '../../command.js';
import { arrayAt, type Column } from '../../output.js';
import type { Runtime } from '../../runtime.js';
import * as broker from '@queen/client/api';
import { found } from '../../api.js';
import { byName } from '../queues.js';

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

/** Registers `status`. */
export function registerStatus(program: Command): void {
  action(sub(program, 'status [queue]', 'Message counts per queue (with a queue: its totals, or its partitions with --partitions)', ['queenctl status', 'queenctl status orders --partitions'])
    .option('--namespace <ns>', 'only queues of this namespace')
    .option('--task <task>', 'only queues of this task')
    .option('--partitions', 'with a queue: one row per partition'), async (rt, opts, queue) => {
    if (queue) await queueStatus(rt, queue, Boolean(opts.partitions));
    else await clusterStatus(rt, opts);
  });
}
