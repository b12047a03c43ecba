/** `GET /health` (API.md 4.1). */
import type { Services } from '../../services.js';
import type { Route } from '../route.js';

/** The cache counters with their hit rate (0 before the first look-up). */
function cacheFigures(stats: { size: number; hits: number; misses: number }): Record<string, number> {
  const lookups = stats.hits + stats.misses;
  return { ...stats, hit_rate: lookups === 0 ? 0 : Number((stats.hits / lookups).toFixed(4)) };
}

/** The health route. */
export function healthRoutes(services: Services): Route[] {
  return [
    {
      method: 'GET',
      path: '/health',
      access: 'PUBLIC',
      async handle() {
        const connected = await services.health.databaseReachable();
        const healthy = connected && !services.health.draining();
        return {
          status: healthy ? 200 : 503,
          body: {
            status: healthy ? 'healthy' : 'unhealthy',
            database: connected ? 'connected' : 'disconnected',
            server: 'Queen TS Broker',
            worker_id: 0,
            version: services.version,
            shared_state: {
              enabled: true,
              running: true,
              server_id: services.serverId,
              transport: 'pg-notify',
              queue_config_cache: cacheFigures(services.queueConfigCache()),
              server_health: services.metrics.heartbeat.health(),
              maintenance_mode: services.maintenance.push,
              pop_maintenance_mode: services.maintenance.pop,
            },
            queen: { worker_id: 0, status: healthy ? 'active' : 'draining' },
          },
        };
      },
    },
  ];
}
