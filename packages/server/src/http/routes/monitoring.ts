/** The monitoring route family: status and stats refresh, analytics, metrics (docs/api.md 7.8, 7.10, 7.11). */
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';
import { analyticsRoutes } from './analytics.js';
import { metricsRoutes } from './metrics.js';
import { statusRoutes } from './status.js';

/** Every monitoring route. */
export function monitoringRoutes(core: RouteContext): Route[] {
  return [...statusRoutes(core), ...analyticsRoutes(core), ...metricsRoutes(core)];
}
