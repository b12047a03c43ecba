/** `GET /metrics` and `GET /metrics/prometheus` (docs/api.md 7.11, PUBLIC); with several workers, all of them merged (metrics/workers.ts). */
import type { Reply as ApiReply } from '@queen/client/api';
import { mergePrometheus, mergeSummaries } from '../../metrics/workers.js';
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';

/** The metrics routes. */
export function metricsRoutes(core: RouteContext): Route[] {
  const { metrics, workers } = core;
  return [
    {
      method: 'GET',
      path: '/metrics',
      access: 'PUBLIC',
      async handle() {
        if (workers === null) return { status: 200, body: metrics.summary() satisfies ApiReply<'metrics'> };
        const { snapshots } = await workers.collect();
        return { status: 200, body: mergeSummaries(snapshots.map((s) => s.summary)) };
      },
    },
    {
      method: 'GET',
      path: '/metrics/prometheus',
      access: 'PUBLIC',
      async handle() {
        const registry = workers === null ? metrics.prometheus.registry : mergePrometheus((await workers.collect()).snapshots);
        return { status: 200, body: await registry.metrics(), headers: { 'Content-Type': registry.contentType, 'Cache-Control': 'no-cache' } };
      },
    },
  ];
}
