/**
 * The routes of the consumer-groups, resources and traces family (docs/api.md 7.2, 7.6, 7.7), registered in the
 * route table as one block.
 */
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';
import { consumerGroupRoutes } from './consumer-groups.js';
import { resourceRoutes } from './resources.js';
import { seekRoutes } from './seek.js';
import { traceRoutes } from './traces.js';

/** Consumer-group, seek, resource listing and trace routes. */
export function groupsResourcesTracesRoutes(core: RouteContext): Route[] {
  return [...consumerGroupRoutes(core), ...seekRoutes(core), ...resourceRoutes(core), ...traceRoutes(core)];
}
