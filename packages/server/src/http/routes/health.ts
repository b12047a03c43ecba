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
 *
 * With several workers (QUEEN_WORKERS) both answer for every worker of the port (docs/decisions.md "Workers").
 */
import type { Reply as ApiReply, Wire } from '@queen/client/api';
import { RETRY_AFTER_SECONDS } from '../../errors.js';
import type { BufferRefusal, BufferState } from '../../buffer/failover-buffer.js';
import { serverHealthWire } from '../../core/status.js';
import type { RouteContext } from '../context.js';
import type { WorkerPeers } from '../../metrics/workers.js';
import type { Reply, Route } from '../route.js';

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

/** This process's readiness answer (docs/api.md 4.1a). */
export function readyAnswer(core: ReadinessSources): Reply & { body: ApiReply<'ready'> } {
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
    },
  };
}

/**
 * The readiness route (docs/api.md 4.1a). With several workers it answers for all: a connection may reach any
 * of them, so one live worker that takes no writes (its buffer full) makes the port not ready, with its reason.
 */
export function readinessRoute(core: ReadinessSources & { workers?: WorkerPeers | null }): Route {
  return {
    method: 'GET',
    path: '/ready',
    access: 'PUBLIC',
    async handle() {
      const own = readyAnswer(core);
      if (own.status !== 200 || core.workers == null) return own;
      const other = (await core.workers.collect()).snapshots.find((s) => s.ready.status !== 200);
      if (other === undefined) return own;
      return { ...own, status: 503, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) }, body: { ...own.body, ready: false, reason: other.ready.reason } };
    },
  };
}

/** This process's health answer (docs/api.md 4.1). */
export async function healthAnswer(core: RouteContext): Promise<Reply & { body: ApiReply<'health'> }> {
  const connected = await core.health.databaseReachable();
  const draining = core.health.draining();
  const healthy = connected && !draining;
  const state = core.buffer.state;
  const buffered = core.buffer.bufferedCount;
  const workerId = core.workers?.index ?? 0;
  return {
    status: healthy ? 200 : 503,
    ...(connected ? {} : { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } }),
    body: {
      status: healthy ? 'healthy' : 'unhealthy',
      database: connected ? 'connected' : 'disconnected',
      database_server: core.health.databaseServer(),
      server: 'Queen TS Broker',
      worker_id: workerId,
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
      queen: { worker_id: workerId, status: draining ? 'draining' : 'active' },
      buffer: { state, buffered_messages: buffered, detail: bufferDetail(state, buffered) },
    },
  };
}

/**
 * `/health` of several workers: this worker's body with `workers` (every slot: serving workers as healthy or
 * unhealthy, a dead one's slot as `restarting` until its replacement serves); 503 when a serving worker is
 * unhealthy. A slot being replaced does not fail it: the other workers take its connections meanwhile.
 */
async function allWorkersHealth(core: RouteContext, workers: WorkerPeers): Promise<Reply> {
  const [own, { slots, snapshots }] = await Promise.all([healthAnswer(core), workers.collect()]);
  const answered = new Map(snapshots.map((s) => [s.index, s]));
  const list = slots.map((slot) => {
    const snapshot = answered.get(slot.index);
    const status = slot.state !== 'serving' ? slot.state : snapshot === undefined ? 'not answering' : snapshot.health.status === 200 ? 'healthy' : 'unhealthy';
    return { worker_id: slot.index, pid: slot.pid, status };
  });
  const healthy = own.status === 200 && list.every((w) => w.status !== 'unhealthy' && w.status !== 'not answering');
  return { ...own, status: healthy ? 200 : 503, body: { ...own.body, status: healthy ? 'healthy' : 'unhealthy', workers: list } };
}

/** The health and readiness routes. */
export function healthRoutes(core: RouteContext): Route[] {
  return [
    readinessRoute(core),
    {
      method: 'GET',
      path: '/health',
      access: 'PUBLIC',
      handle: () => (core.workers === null ? healthAnswer(core) : allWorkersHealth(core, core.workers)),
    },
  ];
}
