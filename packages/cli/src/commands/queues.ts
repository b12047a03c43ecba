/**
 * Queues and partitions (docs/cli.md, plus `queue clear` / `partition clear`, documented but never registered
 * upstream). `queue configure` merges the changed flags into the queue's current options, because our
 * `/configure` is a full replace (docs/cli.md).
 */
import type { Command } from 'commander';
import * as broker from '@queen/client/api';
import { found } from '../api.js';
import { action, bool, int, sub, type Opts } from '../command.js';
import { userError } from '../errors.js';
import { arrayAt, type View } from '../output.js';
import { mergedConfigure } from '../queue-options.js';
import type { Runtime } from '../runtime.js';
import { parseDuration, seekTarget, timeParam } from '../time.js';

const QUEUE_VIEW: View<broker.QueueList, broker.QueueListRow> = {
  rows: (b) => arrayAt(b, 'queues'),
  columns: [
    { header: 'NAME', value: (r) => r.name },
    { header: 'NAMESPACE', value: (r) => r.namespace },
    { header: 'TASK', value: (r) => r.task },
    { header: 'PARTITIONS', value: (r) => r.partitions, kind: 'count' },
    { header: 'PENDING', value: (r) => r.messages?.pending, kind: 'count' },
    { header: 'PROCESSING', value: (r) => r.messages?.processing, kind: 'count' },
    { header: 'TOTAL', value: (r) => r.messages?.total, kind: 'count', wide: true },
    { header: 'CREATED', value: (r) => r.createdAt, kind: 'time', wide: true },
  ],
};

/** Partitions sorted by name: the broker's order is not stable between calls. */
export const byName = <R extends { name: string }>(rows: readonly R[]): R[] => [...rows].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

const PARTITION_VIEW: View<broker.QueueStatus, broker.QueueStatusPartition> = {
  rows: (b) => byName(arrayAt(b, 'partitions')),
  columns: [
    { header: 'PARTITION', value: (r) => r.name },
    { header: 'PENDING', value: (r) => r.messages?.pending, kind: 'count' },
    { header: 'PROCESSING', value: (r) => r.messages?.processing, kind: 'count' },
    { header: 'COMPLETED', value: (r) => r.messages?.completed, kind: 'count', wide: true },
    { header: 'FAILED', value: (r) => r.messages?.failed, kind: 'count', wide: true },
    { header: 'DLQ', value: (r) => r.messages?.deadLetter, kind: 'count', wide: true },
    { header: 'TOTAL', value: (r) => r.messages?.total, kind: 'count', wide: true },
    { header: 'ACTIVITY', value: (r) => r.lastActivity, kind: 'time', wide: true },
  ],
};

/** `--yes` or exit 1. */
export function requireYes(opts: { yes?: boolean }, what: string): void {
  if (!opts.yes) throw userError(`${what}: add --yes to confirm`);
}

/** Seconds flags accept an integer (seconds) or a duration (`5m`). */
const seconds = (flag: string) => (v: string) => Math.round(parseDuration(v, flag, 's') / 1000);
/** Milliseconds flags accept an integer (ms) or a duration (`1s`). */
const millis = (flag: string) => (v: string) => Math.round(parseDuration(v, flag, 'ms'));

/** The `queue configure` flags and the option each sets. */
const CONFIGURE_FLAGS: Array<[flag: string, option: string, help: string, parse: (v: string) => number | boolean]> = [
  ['--lease-time <seconds>', 'leaseTime', 'lease length of a pop (s or duration)', seconds('--lease-time')],
  ['--retry-limit <n>', 'retryLimit', 'failed acks before the DLQ', int],
  ['--retry-delay <ms>', 'retryDelay', 'pause after a failed ack (ms or duration)', millis('--retry-delay')],
  ['--priority <n>', 'priority', 'discovery pops prefer higher priorities', int],
  ['--delayed-processing <seconds>', 'delayedProcessing', 'deliver only messages at least this old', seconds('--delayed-processing')],
  ['--window-buffer <seconds>', 'windowBuffer', 'hold a partition while it keeps receiving', seconds('--window-buffer')],
  ['--max-size <n>', 'maxSize', 'cap on the queue-mode backlog (0 = none)', int],
  ['--retention <seconds>', 'retentionSeconds', 'delete messages older than this', seconds('--retention')],
  ['--completed-retention <seconds>', 'completedRetentionSeconds', 'delete consumed messages older than this', seconds('--completed-retention')],
  ['--ttl <seconds>', 'ttl', 'stored and echoed (no effect)', seconds('--ttl')],
  ['--min-pop-wait-time <ms>', 'minPopWaitTime', 'hold under-full batches (ms or duration)', millis('--min-pop-wait-time')],
  ['--max-wait-time <seconds>', 'maxWaitTimeSeconds', 'evict unconsumed messages older than this', seconds('--max-wait-time')],
  ['--retention-enabled [bool]', 'retentionEnabled', 'turn retention on or off', bool],
  ['--dead-letter-queue [bool]', 'deadLetterQueue', 'stored and echoed', bool],
  ['--encrypt [bool]', 'encryptionEnabled', 'AES-256-GCM at rest', bool],
];

async function listAll(rt: Runtime, opts: Opts): Promise<void> {
  const api = await rt.api();
  await rt.out.print(await broker.listQueues(api.http(), { namespace: opts.namespace, task: opts.task, limit: opts.limit || undefined, offset: opts.offset || undefined }), QUEUE_VIEW);
}

/** Registers `queue` and `partition`. */
export function registerQueues(program: Command): void {
  const queue = sub(program, 'queue', 'Queues: list, describe, configure, delete, clear, stats', 'queenctl queue list', ['queues', 'q']);
  action(sub(queue, 'list', 'List queues with their message counts', ['queenctl queue list', 'queenctl q ls --namespace shop -o json'], ['ls'])
    .option('--namespace <ns>', 'only this namespace')
    .option('--task <task>', 'only this task')
    .option('--limit <n>', 'at most n queues (0 = all)', int, 0)
    .option('--offset <n>', 'skip n queues', int, 0), async (rt, opts) => listAll(rt, opts));

  action(sub(queue, 'describe <queue>', 'A queue with its options, partitions and totals (YAML)', 'queenctl queue describe orders', ['get', 'show']), async (rt, _opts, name) => {
    const api = await rt.api();
    await rt.out.print(await broker.getQueue(api.http(), name!), { describe: true });
  });

  const configure = sub(queue, 'configure <queue>', 'Create a queue or change its options (the options not given keep their values)', ['queenctl queue configure orders --lease-time 2m --retry-limit 5', 'queenctl queue configure orders --encrypt'])
    .option('--namespace <ns>', 'namespace of the queue')
    .option('--task <task>', 'task of the queue');
  for (const [flag, , help, parse] of CONFIGURE_FLAGS) configure.option(flag, help, parse);
  action(configure, async (rt, opts, name) => {
    const changes: Record<string, number | boolean> = {};
    for (const [flag, option] of CONFIGURE_FLAGS) {
      const key = flag.slice(2).split(' ')[0]!.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
      if (opts[key] !== undefined) changes[option] = opts[key] as number | boolean;
    }
    const api = await rt.api();
    const { body } = await mergedConfigure(api, name!, changes, opts);
    const result = await broker.configure(api.http(), body);
    if (typeof result?.warning === 'string') rt.out.warn(result.warning);
    await rt.out.result(`configured "${name}"`, result);
  });

  action(sub(queue, 'delete <queue>', 'Delete a queue with all its messages', 'queenctl queue delete orders --yes', ['rm'])
    .option('--yes', 'confirm'), async (rt, opts, name) => {
    requireYes(opts, `delete queue "${name}"`);
    const api = await rt.api();
    const body = await broker.deleteQueue(api.http(), name!);
    if (body?.existed === false) throw userError(`queue "${name}" does not exist`);
    await rt.out.result(`deleted "${name}"`, body);
  });

  action(sub(queue, 'clear <queue>', 'Delete every message of a queue (or of one partition); configuration and cursors stay', 'queenctl queue clear orders --yes')
    .option('--partition <name>', 'only this partition')
    .option('--yes', 'confirm'), async (rt, opts, name) => {
    requireYes(opts, `clear queue "${name}"`);
    const api = await rt.api();
    const body = await broker.clearQueue(api.http(), name!, opts.partition);
    await rt.out.result(`cleared "${name}"${opts.partition ? ` partition "${opts.partition}"` : ''}: ${body.success ? body.deletedMessages : 0} messages deleted`, body);
  });

  action(sub(queue, 'stats', 'Per-queue message counts (YAML)', 'queenctl queue stats --namespace shop')
    .option('--namespace <ns>', 'only this namespace')
    .option('--task <task>', 'only this task'), async (rt, opts) => {
    const api = await rt.api();
    await rt.out.print(await broker.listQueueStatus(api.http(), { namespace: opts.namespace, task: opts.task }), { describe: true });
  });

  const partition = sub(program, 'partition', 'Partitions of a queue: list, describe, seek, clear', 'queenctl partition list orders', ['partitions', 'p']);
  action(sub(partition, 'list <queue>', 'Partitions of a queue with their message counts', ['queenctl partition list orders', 'queenctl p ls orders -o wide'], ['ls']), async (rt, _opts, name) => {
    const api = await rt.api();
    await rt.out.print(found(await broker.getQueueStatus(api.http(), name!)), PARTITION_VIEW);
  });
  action(sub(partition, 'describe <queue> <partition>', 'The latest messages of a partition (YAML; --from/--to, default the last hour)', 'queenctl partition describe orders customer-9 --from "1d ago"', ['get', 'show'])
    .option('--from <time>', 'from this time (default 1h ago)')
    .option('--to <time>', 'until this time (default now)')
    .option('--limit <n>', 'at most n messages', int, 50), async (rt, opts, name, part) => {
    const api = await rt.api();
    await rt.out.print(await broker.listMessages(api.http(), { queue: name, partition: part, limit: opts.limit, from: timeParam(opts.from, '--from'), to: timeParam(opts.to, '--to') }), { describe: true });
  });
  action(sub(partition, 'seek <queue> <partition>', 'Skip a consumer group to the end of one partition', 'queenctl partition seek orders customer-9 --cg billing')
    .requiredOption('--cg <group>', 'consumer group')
    .option('--to <target>', 'only end (or now, latest)', 'end'), async (rt, opts, name, part) => {
    const target = seekTarget(opts.to);
    if (!('toEnd' in target)) throw userError('partition seek --to accepts only end, now or latest (use cg seek for a time)');
    const api = await rt.api();
    const body = await broker.seekPartition(api.http(), opts.cg, name!, part!, target);
    await rt.out.result(`seek cg=${opts.cg} queue=${name} partition=${part} to=end`, body);
  });
  action(sub(partition, 'clear <queue> <partition>', 'Delete every message of one partition', 'queenctl partition clear orders customer-9 --yes')
    .option('--yes', 'confirm'), async (rt, opts, name, part) => {
    requireYes(opts, `clear partition "${part}" of "${name}"`);
    const api = await rt.api();
    const body = await broker.clearQueue(api.http(), name!, part);
    await rt.out.result(`cleared "${name}" partition "${part}": ${body.success ? body.deletedMessages : 0} messages deleted`, body);
  });
}
