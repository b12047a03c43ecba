/**
 * Maintenance modes and shared state (docs/api.md 7.9, ADMIN; behaviour 9.4). The flags are cluster-wide
 * (stored in the database); the buffer figures are this process's own.
 */
import type { Body, Reply as ApiReply } from '@queen/client/api';
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';

/** `enabled`, checked at the edge (validation.ts). */
const enabledOf = (body: Record<string, unknown>): boolean => (body as Body<'setMaintenance'>).enabled;

const pushMessage = (on: boolean): string => on
  ? 'Maintenance mode is ON: pushes are written to the local disk buffer and answered buffered; they are replayed when it is turned off'
  : 'Maintenance mode is OFF: pushes go to the database; buffered messages are being replayed';
const popMessage = (on: boolean): string => on
  ? 'Pop maintenance mode is ON: every pop answers 204 (paused) and takes no lease'
  : 'Pop maintenance mode is OFF: pops deliver messages';

/** The maintenance and shared-state routes. */
export function maintenanceRoutes(core: RouteContext): Route[] {
  const { maintenance, buffer } = core;
  return [
    {
      method: 'GET',
      path: '/api/v1/system/maintenance',
      access: 'ADMIN',
      async handle() {
        const stats = buffer.stats();
        const dbHealthy = stats.dbHealthy && (await core.health.databaseReachable());
        return {
          status: 200,
          body: {
            maintenanceMode: maintenance.push,
            popMaintenanceMode: maintenance.pop,
            bufferedMessages: buffer.bufferedCount,
            bufferHealthy: buffer.healthy,
            bufferStats: { ...stats, dbHealthy },
          } satisfies ApiReply<'getMaintenance'>,
        };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/system/maintenance',
      access: 'ADMIN',
      body: 'required',
      async handle({ body }) {
        const flags = await maintenance.set('push', enabledOf(body));
        return {
          status: 200,
          body: { maintenanceMode: flags.push, bufferedMessages: buffer.bufferedCount, bufferHealthy: buffer.healthy, message: pushMessage(flags.push) } satisfies ApiReply<'setMaintenance'>,
        };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/system/maintenance/pop',
      access: 'ADMIN',
      async handle() {
        return { status: 200, body: { popMaintenanceMode: maintenance.pop, message: popMessage(maintenance.pop) } satisfies ApiReply<'getPopMaintenance'> };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/system/maintenance/pop',
      access: 'ADMIN',
      body: 'required',
      async handle({ body }) {
        const flags = await maintenance.set('pop', enabledOf(body));
        return { status: 200, body: { popMaintenanceMode: flags.pop, message: popMessage(flags.pop) } satisfies ApiReply<'setPopMaintenance'> };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/system/shared-state',
      access: 'ADMIN',
      async handle() {
        const [flags, rows] = await Promise.all([
          core.catalog.maintenanceRead(),
          core.catalog.serverAliveList({ aliveSeconds: core.metrics.heartbeat.aliveSeconds }),
        ]);
        return {
          status: 200,
          body: {
            serverId: core.identity.serverId,
            processes: rows.map((r) => ({ serverId: r.serverId, hostname: r.hostname, pid: r.pid, startedAt: r.startedAt,
              lastHeartbeatAt: r.lastHeartbeatAt, parkedPops: r.parkedPops })),
            maintenanceMode: flags.push,
            popMaintenanceMode: flags.pop,
          } satisfies ApiReply<'getSharedState'>,
        };
      },
    },
  ];
}
