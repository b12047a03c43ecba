/**
 * Consumer groups, namespaces and tasks (docs/cli.md): `cg list/lag/describe/seek/delete/refresh-stats/
 * subscription`, `namespace list`, `task list`. `cg delete` always sends `deleteMetadata`, so the server default
 * (true) never applies by accident.
 */
import type { Command } from 'commander';
import * as broker from '@queen/client/api';
import { action, int, sub } from '../command.js';
import { userError } from '../errors.js';
import { arrayAt, type Column } from '../output.js';
import { rfc3339, parseTime, seekLabel, seekTarget } from '../time.js';
import { requireYes } from './queues.js';
import { printLag } from './top/lag.js';

/** Registers `cg`, `namespace` and `task`. */
export function registerGroups(program: Command): void {
  const cg = sub(program, 'cg', 'Consumer groups: list, lag, describe, seek, delete, subscription, refresh-stats', 'queenctl cg list', ['consumer-group', 'consumer-groups']);
  action(sub(cg, 'list', 'Every (group, queue) with its lag and state', ['queenctl cg list', 'queenctl cg ls -o wide'], ['ls']), async (rt) => printLag(rt, 0));
  action(sub(cg, 'lag', 'Lag per group, or the partitions lagging at least --min-seconds', ['queenctl cg lag', 'queenctl cg lag --min-seconds 60'])
    .option('--min-seconds <n>', 'only partitions at least this far behind', int, 0), async (rt, opts) => printLag(rt, opts.minSeconds));
  action(sub(cg, 'describe <group>', 'Per queue and partition: consumed, lag, lease (YAML)', 'queenctl cg describe billing', ['get', 'show']), async (rt, _o, group) => {
    const api = await rt.api();
    const body = await broker.getConsumerGroup(api.http(), group!);
    if (body && typeof body === 'object' && Object.keys(body).length === 0) throw userError(`consumer group "${group}" not found`);
    await rt.out.print(body, { describe: true });
  });
  action(sub(cg, 'seek <group> <queue>', 'Move a group on every partition of a queue to a time (or the end)', ['queenctl cg seek billing orders --to "2h ago"', 'queenctl cg seek billing orders --to end'])
    .requiredOption('--to <time>', 'beginning, end, now, 15m ago, RFC 3339 ...')
    .option('--dry-run', 'print the seek, do not send it'), async (rt, opts, group, queue) => {
    const target = seekTarget(opts.to);
    const line = `seek cg=${group} queue=${queue} to=${seekLabel(target)}`;
    if (opts.dryRun) return rt.out.done(`[dry-run] ${line}`);
    const api = await rt.api();
    const body = await broker.seekQueue(api.http(), group!, queue!, target);
    await rt.out.result(line, body);
  });
  action(sub(cg, 'delete <group>', 'Forget a group on every queue (or one): cursors, leases, counters', 'queenctl cg delete billing --queue orders --yes', ['rm'])
    .option('--queue <name>', 'only on this queue')
    .option('--metadata', 'also delete its subscription records')
    .option('--yes', 'confirm'), async (rt, opts, group) => {
    requireYes(opts, `delete consumer group "${group}"`);
    const api = await rt.api();
    const query = { deleteMetadata: Boolean(opts.metadata) };
    const body = await (opts.queue ? broker.deleteConsumerGroupForQueue(api.http(), group!, opts.queue, query) : broker.deleteConsumerGroup(api.http(), group!, query));
    await rt.out.result(`deleted cg=${group}${opts.queue ? ` queue=${opts.queue}` : ''}`, body);
  });
  action(sub(cg, 'subscription <group>', 'Re-time where the never-contacted cursors of a group start', 'queenctl cg subscription billing --from "1h ago"')
    .requiredOption('--from <time>', 'now or a time expression'), async (rt, opts, group) => {
    const ts = opts.from.trim().toLowerCase() === 'now' ? 'now' : rfc3339(parseTime(opts.from, '--from'));
    const api = await rt.api();
    const body = await broker.updateSubscription(api.http(), group!, ts);
    const done = body.success ? body : undefined;
    await rt.out.result(`subscription cg=${group} from=${done?.newTimestamp ?? ts} (${done?.rowsUpdated ?? 0} records)`, body);
  });
  action(sub(cg, 'refresh-stats', 'Recompute the stats snapshot now', 'queenctl cg refresh-stats'), async (rt) => {
    const api = await rt.api();
    await rt.out.result('refreshed', await broker.refreshStats(api.http()));
  });

  const ns = sub(program, 'namespace', 'Namespaces', 'queenctl namespace list', ['ns', 'namespaces']);
  resourceList(sub(ns, 'list', 'Namespaces with their queues and message counts', 'queenctl ns list', ['ls']), 'namespaces');
  const task = sub(program, 'task', 'Tasks', 'queenctl task list', ['tasks']);
  resourceList(sub(task, 'list', 'Tasks with their queues and message counts', 'queenctl task list', ['ls']), 'tasks');
}

/** The count columns `namespace list` and `task list` share. */
const COUNT_COLUMNS: Column<broker.NamespaceRow | broker.TaskRow>[] = [
  { header: 'QUEUES', value: (r) => r.queues, kind: 'count' },
  { header: 'PARTITIONS', value: (r) => r.partitions, kind: 'count' },
  { header: 'PENDING', value: (r) => r.messages?.pending, kind: 'count' },
  { header: 'TOTAL', value: (r) => r.messages?.total, kind: 'count', wide: true },
];

/** `namespace list` / `task list` (operations listNamespaces, listTasks): one row per namespace or task. */
function resourceList(cmd: Command, route: 'namespaces' | 'tasks'): void {
  action(cmd, async (rt) => {
    const api = await rt.api();
    if (route === 'namespaces') await rt.out.print(await broker.listNamespaces(api.http()), { rows: (b) => arrayAt(b, 'namespaces'), columns: [{ header: 'NAMESPACE', value: (r) => r.namespace }, ...COUNT_COLUMNS] });
    else await rt.out.print(await broker.listTasks(api.http()), { rows: (b) => arrayAt(b, 'tasks'), columns: [{ header: 'TASK', value: (r) => r.task }, ...COUNT_COLUMNS] });
  });
}
