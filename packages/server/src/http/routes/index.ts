/** The route table (API.md 3): every route family of the broker, in one list. */
import type { Services } from '../../services.js';
import type { Route } from '../route.js';
import { ackRoutes } from './ack.js';
import { healthRoutes } from './health.js';
import { maintenanceRoutes } from './maintenance.js';
import { groupsResourcesTracesRoutes } from './groups-resources-traces.js';
import { messageFamilyRoutes } from './message-family.js';
import { monitoringRoutes } from './monitoring.js';
import { popRoutes } from './pop.js';
import { pushRoutes } from './push.js';
import { queueRoutes } from './queues.js';
import { streamsRoutes } from './streams.js';

/** All routes, built over the broker's services. */
export function routeTable(services: Services): Route[] {
  return [
    ...healthRoutes(services),
    ...queueRoutes(services),
    ...pushRoutes(services),
    ...popRoutes(services),
    ...ackRoutes(services),
    ...messageFamilyRoutes(services),
    ...groupsResourcesTracesRoutes(services),
    ...monitoringRoutes(services),
    ...maintenanceRoutes(services),
    ...streamsRoutes(services),
  ];
}
