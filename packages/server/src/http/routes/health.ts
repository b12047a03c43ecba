/**
 * `GET /health` (docs/api.md 4.1): 200 while the database answers `SELECT 1` within 2 s and the broker is not
 * shutting down, else 503 (with Retry-After while the database is unreachable). `queen.status` is
 * `draining` only while the broker shuts down; `buffer` says what the failover buffer is doing
 * (docs/decisions.md "Outage answers").
 *
 * `GET /ready` (docs/api.md 4.1a): can this broker take writes now? 200 while a push would be committed or
 * buffered, 503 while it drains or its buffer refuses pushes. It never asks the database: an outage is what
 * the buffer is for, so a load balancer that follows /ready keeps every broker in service through one
 * (docs/decisions.md "Readiness is the ability to take writes").
 */
import type { Reply as ApiReply, Wire } from '@queen/client/api';
import { RETRY_AFTER_SECONDS } from '../../errors.js';
import type { BufferRefusal, BufferState } from '../../buffer/failover-buffer.js';
import { serverHealthWire } from '../../core/status.js';
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';

/** The cache counters with their hit rate (0 before the first look-up). */
function cacheFigures(stats: { size: number; hits: number; misses: number }): Wire<'Health'>['shared_state']['queue_config_cache'] {
  const lookups = stats.hits + stats.misses;
  return { ...stats, hit_rate: lookups === 0 ? 0 : Number((stats.hits / lookups).toFixed(4)) };
}

/** The buffer's line of the health body: "replaying 1 234 buffered messages". */
export function bufferDetail(state: BufferState, messages: number): string {
  switch (state) {
    case 'buffering':
      return `buffering pushes: ${messages} buffered messages wait for the database`;
    case 'replaying':
      return `replaying ${messages} buffered messages`;
    case 'failed':
      return `${messages} buffered messages in the failed set, retried every minute`;
    default:
      return 'empty';
  }
}

/** What `/ready` reads: the lifecycle and the buffer (no database). */
export type ReadinessSources = { health: Pick<RouteContext['health'], 'draining'>; buffer: Pick<RouteContext['buffer'], 'refusal' | 'active' | 'state' | 'bufferedCount' | 'bytes' | 'maxBytes'> };

/** Why the broker takes no writes now, or null when it does. */
export function notReadyReason(core: ReadinessSources): 'draining' | BufferRefusal | null {
  return core.health.draining() ? 'draining' : core.buffer.refusal;
}

/** The readiness route (docs/api.md 4.1a). */
export function readinessRoute(core: ReadinessSources): Route {
  return {
    method: 'GET',
    path: '/ready',
    access: 'PUBLIC',
    async handle() {
      const reason = notReadyReason(core);
      const state = core.buffer.state;
      const buffered = core.buffer.bufferedCount;
      return {
        status: reason === null ? 200 : 503,
        ...(reason === null ? {} : { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } }),
        body: {
          ready: reason === null,
          reason,
          writes: core.buffer.active() ? 'buffer' : 'database',
          buffer: { state, buffered_messages: buffered, detail: bufferDetail(state, buffered), bytes: core.buffer.bytes, max_bytes: core.buffer.maxBytes },
        } satisfies ApiReply<'ready'>,
      };
    },
  };
}

/** The health and readiness routes. */
export function healthRoutes(core: RouteContext): Route[] {
  return [
    readinessRoute(core),
    {
      method: 'GET',
      path: '/health',
      access: 'PUBLIC',
      async handle() {
        const connected = await core.health.databaseReachable();
        const draining = core.health.draining();
        const healthy = connected && !draining;
        const state = core.buffer.state;
        const buffered = core.buffer.bufferedCount;
        return {
          status: healthy ? 200 : 503,
          ...(connected ? {} : { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } }),
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
            queen: { worker_id: 0, status: draining ? 'draining' : 'active' },
            buffer: { state, buffered_messages: buffered, detail: bufferDetail(state, buffered) },
          } satisfies ApiReply<'health'>,
        };
      },
    },
  ];
}
