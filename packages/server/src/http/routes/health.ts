/** `GET /health` (API.md 4.1). */
import { serverHealthWire } from '../../core/status.js';
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';

/** The cache counters with their hit rate (0 before the first look-up). */
function cacheFigures(stats: { size: number; hits: number; misses: number }): Record<string, number> {
  const lookups = stats.hits + stats.misses;
  return { ...stats, hit_rate: lookups === 0 ? 0 : Number((stats.hits / lookups).toFixed(4)) };
}

/** The health route. */
export function healthRoutes(core: RouteContext): Route[] {
  return [
    {
      method: 'GET',
      path: '/health',
      access: 'PUBLIC',
      async handle() {
        const connected = await core.health.databaseReachable();
        const healthy = connected && !core.health.draining();
        return {
          status: healthy ? 200 : 503,
          body: {
            status: healthy ? 'healthy' : 'unhealthy',
            database: connected ? 'connected' : 'disconnected',
            database_server: core.health.databaseServer(),
            server: 'Queen TS Broker',
            worker_id: 0,
            version: core.identity.version,
            shared_state: {
              enabled: true,
              running: true,
              server_id: core.identity.serverId,
              transport: 'pg-notify',
              queue_config_cache: cacheFigures(core.queueCache.stats()),
              server_health: serverHealthWire(core.metrics.heartbeat.health()),
              maintenance_mode: core.maintenance.push,
              pop_maintenance_mode: core.maintenance.pop,
            },
            queen: { worker_id: 0, status: healthy ? 'active' : 'draining' },
          },
        };
      },
    },
  ];
}
