/** The route table (docs/api.md 3): every route family of the broker, in one list. */
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';
import { ackRoutes } from './ack.js';
import { healthRoutes } from './health.js';
import { maintenanceRoutes } from './maintenance.js';
import { groupsResourcesTracesRoutes } from './groups-resources-traces.js';
import { messageFamilyRoutes } from './message-family.js';
import { monitoringRoutes } from './monitoring.js';
import { openApiRoutes } from './openapi.js';
import { popRoutes } from './pop.js';
import { pushRoutes } from './push.js';
import { queueRoutes } from './queues.js';
import { streamsRoutes } from './streams.js';

/** All routes, built over the broker's core. */
export function routeTable(core: RouteContext): Route[] {
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
  ];
}
