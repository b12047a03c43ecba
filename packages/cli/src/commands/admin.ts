/**
 * Analytics, maintenance and the operator-only reads (CLI.md §6.2, §16): `analytics <view>`, `maintenance
 * get|on|off [--pop]`, `buffers`, `shared-state`. Turning maintenance on needs `--yes` (pushes then go to the
 * broker's buffer, pops pause).
 */
import type { Command } from 'commander';
import { action, sub } from '../command.js';
import { timeParam } from '../time.js';
import { requireYes } from './queues.js';

const ANALYTICS: Array<[name: string, path: string, help: string, ranged: boolean]> = [
  ['overview', '/api/v1/status/analytics', 'ingested, processed, failed and DLQ counts over time', true],
  ['queue-lag', '/api/v1/analytics/queue-lag', 'pop lag per queue over time', true],
  ['queue-ops', '/api/v1/analytics/queue-ops', 'push, pop and ack counts per queue over time', true],
  ['queue-parked', '/api/v1/analytics/queue-parked-replicas', 'parked long-polls per queue and broker', false],
  ['retention', '/api/v1/analytics/retention', 'what retention and eviction deleted', true],
  ['system', '/api/v1/analytics/system-metrics', 'CPU, memory, pool and event-loop samples per broker', true],
  ['worker', '/api/v1/analytics/worker-metrics', 'per-minute operation counters per broker', true],
  ['postgres', '/api/v1/analytics/postgres-stats', "PostgreSQL's statistics for the queen schema", false],
];

/** Registers `analytics`, `maintenance`, `buffers` and `shared-state`. */
export function registerAdmin(program: Command): void {
  const analytics = sub(program, 'analytics', 'Analytics views (YAML): overview, queue-lag, queue-ops, queue-parked, retention, system, worker, postgres', 'queenctl analytics queue-ops --from "6h ago"', ['a', 'an']);
  for (const [name, path, help, ranged] of ANALYTICS) {
    const cmd = sub(analytics, name, help, `queenctl analytics ${name}${ranged ? ' --from "1h ago"' : ''}`);
    if (ranged) cmd.option('--from <time>', 'start of the range (default: the route\'s)').option('--to <time>', 'end of the range (default now)').option('--queue <name>', 'only this queue');
    action(cmd, async (rt, opts) => {
      const api = await rt.api();
      const params = ranged ? { from: timeParam(opts.from, '--from'), to: timeParam(opts.to, '--to'), queue: opts.queue } : {};
      await rt.out.print(await api.get(path, params), { describe: true });
    });
  }

  const maint = sub(program, 'maintenance', 'Push maintenance (pushes buffered) and, with --pop, pop maintenance (pops paused)', ['queenctl maintenance get', 'queenctl maintenance on --yes', 'queenctl maintenance off --pop'], ['maint']);
  const route = (pop: boolean) => (pop ? '/api/v1/system/maintenance/pop' : '/api/v1/system/maintenance');
  action(sub(maint, 'get', 'The maintenance flags and the buffer state (YAML)', 'queenctl maintenance get --pop').option('--pop', 'pop maintenance'), async (rt, opts) => {
    const api = await rt.api();
    await rt.out.print(await api.get(route(Boolean(opts.pop))), { describe: true });
  });
  for (const enabled of [true, false]) {
    const name = enabled ? 'on' : 'off';
    const cmd = sub(maint, name, `Turn maintenance ${name} (--pop: pop maintenance)`, `queenctl maintenance ${name}${enabled ? ' --yes' : ''}`).option('--pop', 'pop maintenance');
    if (enabled) cmd.option('--yes', 'confirm');
    action(cmd, async (rt, o) => {
      if (enabled) requireYes(o, `maintenance on${o.pop ? ' --pop' : ''}`);
      const api = await rt.api();
      const body = await api.post(route(Boolean(o.pop)), { enabled });
      await rt.out.result(`${o.pop ? 'pop-maintenance' : 'maintenance'} ${name}`, body);
    });
  }

  action(sub(program, 'buffers', "The broker's failover buffer: pending and failed counts (YAML)", 'queenctl buffers'), async (rt) => {
    const api = await rt.api();
    await rt.out.print(await api.get('/api/v1/status/buffers'), { describe: true });
  });
  action(sub(program, 'shared-state', 'The broker processes serving this database and the maintenance flags', 'queenctl shared-state -o wide'), async (rt) => {
    const api = await rt.api();
    await rt.out.print(await api.get('/api/v1/system/shared-state'), {
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

