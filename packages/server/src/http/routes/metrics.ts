/** `GET /metrics` and `GET /metrics/prometheus` (docs/api.md 7.11, PUBLIC). */
import type { Reply as ApiReply } from '@queen/client/api';
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';

/** The metrics routes. */
export function metricsRoutes(core: RouteContext): Route[] {
  const { metrics } = core;
  return [
    {
      method: 'GET',
      path: '/metrics',
      access: 'PUBLIC',
      async handle() {
        return { status: 200, body: metrics.summary() satisfies ApiReply<'metrics'> };
      },
    },
    {
      method: 'GET',
      path: '/metrics/prometheus',
      access: 'PUBLIC',
      async handle() {
        const { registry } = metrics.prometheus;
        return { status: 200, body: await registry.metrics(), headers: { 'Content-Type': registry.contentType, 'Cache-Control': 'no-cache' } };
      },
    },
  ];
}
