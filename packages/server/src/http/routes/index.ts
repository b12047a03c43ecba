/** The route table (docs/api.md 3): every route family of the broker, in one list. */
import { databaseUnreachable } from '../../errors.js';
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';
import { ackRoutes } from './ack.js';
import { healthRoutes } from './health.js';
import { maintenanceRoutes } from './maintenance.js';
import { groupsResourcesTracesRoutes } from './groups-resources-traces.js';
import { messageFamilyRoutes } from './message-family.js';
import { migrationRoutes } from './migration.js';
import { monitoringRoutes } from './monitoring.js';
import { openApiRoutes } from './openapi.js';
import { popRoutes } from './pop.js';
import { pushRoutes } from './push.js';
import { queueRoutes } from './queues.js';
import { streamsRoutes } from './streams.js';

/**
 * The routes a broker serves before it has reached its database (docs/api.md 9.8 rule 3): health, readiness,
 * metrics, the document, and push (into the failover buffer). The others answer 503 `database is unreachable`
 * with Retry-After until the database answered and the schema is migrated.
 */
export const SERVED_WITHOUT_DATABASE: ReadonlySet<string> = new Set([
  'GET /health', 'GET /ready', 'GET /metrics', 'GET /metrics/prometheus', 'GET /openapi.json', 'POST /api/v1/push',
]);

/**
 * All routes, built over the broker's core. With `online`, a route outside SERVED_WITHOUT_DATABASE answers 503
 * while `online()` is false (a start while PostgreSQL is unreachable), before it reaches any service.
 */
export function routeTable(core: RouteContext, online?: () => boolean): Route[] {
  const routes = allRoutes(core);
  if (online === undefined) return routes;
  return routes.map((route) => SERVED_WITHOUT_DATABASE.has(`${route.method} ${route.path}`) ? route : {
    ...route,
    handle: (request) => (online() ? route.handle(request) : Promise.reject(databaseUnreachable())),
  });
}

function allRoutes(core: RouteContext): Route[] {
  return [
    ...healthRoutes(core),
    ...openApiRoutes(),
    ...queueRoutes(core),
    ...pushRoutes(core),
    ...popRoutes(core),
    ...ackRoutes(core),
    ...messageFamilyRoutes(core),
    ...groupsResourcesTracesRoutes(core),
    ...monitoringRoutes(core),
    ...maintenanceRoutes(core),
    ...streamsRoutes(core),
    ...migrationRoutes(core),
  ];
}
