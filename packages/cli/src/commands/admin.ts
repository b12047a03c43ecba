/**
 * Analytics, maintenance and the operator-only reads (docs/cli.md): `analytics <view>`, `maintenance
 * get|on|off [--pop]`, `buffers`, `shared-state`. Turning maintenance on needs `--yes` (pushes then go to the
 * broker's buffer, pops pause).
 */
import * as broker from '@queen/client/api';
import type { ApiRequester } from '@queen/client/api';
import type { Command } from 'commander';
import { action, sub } from '../command.js';
import { timeParam } from '../time.js';
import { requireYes } from './queues.js';

/** The range and queue filter of a ranged view. */
type Range = { from?: string; to?: string; queue?: string };

const ANALYTICS: Array<[name: string, read: (http: ApiRequester, range: Range) => Promise<unknown>, help: string, ranged: boolean]> = [
  ['overview', (h, r) => broker.getStatusAnalytics(h, r), 'ingested, processed, failed and DLQ counts over time', true],
  ['queue-lag', (h, r) => broker.getQueueLag(h, r), 'pop lag per queue over time', true],
  ['queue-ops', (h, r) => broker.getQueueOps(h, r), 'push, pop and ack counts per queue over time', true],
  ['queue-parked', (h) => broker.getParkedReplicas(h), 'parked long-polls per queue and broker', false],
  ['retention', (h, r) => broker.getRetentionHistory(h, r), 'what retention and eviction deleted', true],
  ['system', (h, r) => broker.getSystemMetrics(h, r), 'CPU, memory, pool and event-loop samples per broker', true],
  ['worker', (h, r) => broker.getWorkerMetrics(h, r), 'per-minute operation counters per broker', true],
  ['postgres', (h) => broker.getPostgresStats(h), "PostgreSQL's statistics for the queen schema", false],
];

/** Registers `analytics`, `maintenance`, `buffers` and `shared-state`. */
export function registerAdmin(program: Command): void {
  const analytics = sub(program, 'analytics', 'Analytics views (YAML): overview, queue-lag, queue-ops, queue-parked, retention, system, worker, postgres', 'queenctl analytics queue-ops --from "6h ago"', ['a', 'an']);
  for (const [name, read, help, ranged] of ANALYTICS) {
    const cmd = sub(analytics, name, help, `queenctl analytics ${name}${ranged ? ' --from "1h ago"' : ''}`);
    if (ranged) cmd.option('--from <time>', 'start of the range (default: the route\'s)').option('--to <time>', 'end of the range (default now)').option('--queue <name>', 'only this queue');
    action(cmd, async (rt, opts) => {
      const api = await rt.api();
      const params = ranged ? { from: timeParam(opts.from, '--from'), to: timeParam(opts.to, '--to'), queue: opts.queue } : {};
      await rt.out.print(await read(api.http(), params), { describe: true });
    });
  }

  const maint = sub(program, 'maintenance', 'Push maintenance (pushes buffered) and, with --pop, pop maintenance (pops paused)', ['queenctl maintenance get', 'queenctl maintenance on --yes', 'queenctl maintenance off --pop'], ['maint']);
  action(sub(maint, 'get', 'The maintenance flags and the buffer state (YAML)', 'queenctl maintenance get --pop').option('--pop', 'pop maintenance'), async (rt, opts) => {
    const api = await rt.api();
    await rt.out.print(await (opts.pop ? broker.getPopMaintenance(api.http()) : broker.getMaintenance(api.http())), { describe: true });
  });
  for (const enabled of [true, false]) {
    const name = enabled ? 'on' : 'off';
    const cmd = sub(maint, name, `Turn maintenance ${name} (--pop: pop maintenance)`, `queenctl maintenance ${name}${enabled ? ' --yes' : ''}`).option('--pop', 'pop maintenance');
    if (enabled) cmd.option('--yes', 'confirm');
    action(cmd, async (rt, o) => {
      if (enabled) requireYes(o, `maintenance on${o.pop ? ' --pop' : ''}`);
      const api = await rt.api();
      const body = await (o.pop ? broker.setPopMaintenance(api.http(), enabled) : broker.setMaintenance(api.http(), enabled));
      await rt.out.result(`${o.pop ? 'pop-maintenance' : 'maintenance'} ${name}`, body);
    });
  }

  action(sub(program, 'buffers', "The broker's failover buffer: pending and failed counts (YAML)", 'queenctl buffers'), async (rt) => {
    const api = await rt.api();
    await rt.out.print(await broker.getBufferStatus(api.http()), { describe: true });
  });
  action(sub(program, 'shared-state', 'The broker processes serving this database and the maintenance flags', 'queenctl shared-state -o wide'), async (rt) => {
    const api = await rt.api();
    await rt.out.print(await broker.getSharedState(api.http()), {
      rows: (b) => b.processes ?? [],
      columns: [
        { header: 'SERVER', value: (r) => r.serverId },
        { header: 'HOST', value: (r) => r.hostname },
        { header: 'PID', value: (r) => r.pid },
        { header: 'STARTED', value: (r) => r.startedAt, kind: 'time' },
        { header: 'HEARTBEAT', value: (r) => r.lastHeartbeatAt, kind: 'time' },
        { header: 'PARKED', value: (r) => r.parkedPops, kind: 'count', wide: true },
      ],
    });
  });
}

