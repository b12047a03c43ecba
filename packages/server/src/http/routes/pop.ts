/**
 * The three pop routes (API.md 5; the seed document is normative). Parameters come from the query string;
 * a 200 carries the batch, anything else delivered nothing and is a bare 204 with X-Queen-Empty-Reason.
 */
import { popBadRequest } from '../../errors.js';
import { effectiveGroup, isValidName } from '../../core/names.js';
import type { PopRequest, PopResult } from '../../core/pop.js';
import { leaseRelease, type ClaimedMessage } from '../../store/cursors.js';
import type { Services } from '../../services.js';
import type { Query } from '../query.js';
import type { Reply, RequestContext, Route } from '../route.js';

const MAX_TIMEOUT_MS = 600_000;
/** Largest `partitions` (a PostgreSQL integer); 0 or less removes the bound (API.md 5.2). */
const MAX_PARTITIONS = 2_147_483_647;
/** Largest `leaseSeconds`: ten years, the lease extension's ceiling too; 0 or less means the queue's leaseTime. */
const MAX_LEASE_SECONDS = 315_360_000;

/** Builds the 200 body as text: payloads are JSON already and are spliced in verbatim. */
export function popBody(queue: string, group: string, leaseId: string, messages: ClaimedMessage[]): string {
  const groupJson = JSON.stringify(group);
  const leaseJson = JSON.stringify(leaseId);
  const parts: string[] = [];
  let partitions = 0;
  let lastPartition = '';
  for (const m of messages) {
    if (m.partition_id !== lastPartition) {
      partitions += 1;
      lastPartition = m.partition_id;
    }
    parts.push(
      `{"id":"${m.message_id}","transactionId":${JSON.stringify(m.transaction_id)},"traceId":${m.trace_id === null ? 'null' : `"${m.trace_id}"`},` +
        `"data":${m.payload},"producerSub":${m.producer_sub === null ? 'null' : JSON.stringify(m.producer_sub)},` +
        `"createdAt":"${m.created_at}","partitionId":"${m.partition_id}","partition":${JSON.stringify(m.partition_name)},` +
        `"leaseId":${leaseJson},"consumerGroup":${groupJson}}`,
    );
  }
  const first = messages[0]!;
  return `{"success":true,"queue":${JSON.stringify(queue)},"partition":${JSON.stringify(first.partition_name)},` +
    `"partitionId":"${first.partition_id}","leaseId":${leaseJson},"consumerGroup":${groupJson},` +
    `"messages":[${parts.join(',')}],"partitionsClaimed":${partitions}}`;
}

function checkedName(value: string | null, error: string): string | null {
  if (value !== null && value.length > 255) throw popBadRequest(error);
  return value;
}

/** Reads the shared parameters of the three routes (API.md 5.2). */
function parseCommon(services: Services, query: Query): Omit<PopRequest, 'scope' | 'queue' | 'partition' | 'arrivedAt'> {
  const settings = services.config.pop;
  const group = checkedName(query.string('consumerGroup'), 'Invalid consumerGroup');
  const batch = Math.min(Math.max(query.integer('batch') ?? settings.defaultBatchSize, 1), settings.maxBatchSize);
  const timeout = query.integer('timeout') ?? settings.defaultTimeoutMs;
  return {
    namespace: query.string('namespace'),
    task: query.string('task'),
    group: effectiveGroup(group),
    batch,
    maxPartitions: Math.max(query.integerAtMost('partitions', MAX_PARTITIONS) ?? 1, 0),
    wait: query.boolean('wait') ?? false,
    timeoutMs: Math.min(Math.max(timeout, 0), MAX_TIMEOUT_MS),
    leaseSeconds: Math.max(query.integerAtMost('leaseSeconds', MAX_LEASE_SECONDS) ?? 0, 0),
    autoAck: query.boolean('autoAck') ?? false,
    subscriptionMode: query.string('subscriptionMode'),
    subscriptionFrom: query.string('subscriptionFrom'),
  };
}

async function serve(services: Services, request: PopRequest, ctx: RequestContext): Promise<Reply> {
  const result: PopResult = await services.pop.pop(request, ctx.signal);
  services.metrics.recorder.popped(request, result);
  if (result.kind === 'empty') return { status: 204, headers: { 'X-Queen-Empty-Reason': result.reason } };
  if (ctx.signal.aborted) {
    // The client left before the 200 could be written: hand the span back rather than let it time out.
    if (result.leaseId !== '') await leaseRelease(services.db, { leaseId: result.leaseId, origin: '' }).catch(() => undefined);
    return { status: 204 };
  }
  return { status: 200, body: popBody(request.queue ?? '', request.group, result.leaseId, result.messages) };
}

function queueName(raw: string | undefined): string {
  const name = raw ?? '';
  if (!isValidName(name)) throw popBadRequest('Invalid queue name');
  return name;
}

/** The pop routes. */
export function popRoutes(services: Services): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/pop/queue/:queue/partition/:partition',
      access: 'READ_WRITE',
      popShape: true,
      handle(ctx) {
        const queue = queueName(ctx.params.queue);
        const partition = ctx.params.partition ?? '';
        if (!isValidName(partition)) throw popBadRequest('Invalid partition name');
        return serve(services, { ...parseCommon(services, ctx.query), scope: 'partition', queue, partition, namespace: null, task: null, arrivedAt: ctx.arrivedAt }, ctx);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/pop/queue/:queue',
      access: 'READ_WRITE',
      popShape: true,
      handle(ctx) {
        const queue = queueName(ctx.params.queue);
        return serve(services, { ...parseCommon(services, ctx.query), scope: 'queue', queue, partition: null, namespace: null, task: null, arrivedAt: ctx.arrivedAt }, ctx);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/pop',
      access: 'READ_WRITE',
      popShape: true,
      handle(ctx) {
        const common = parseCommon(services, ctx.query);
        if (common.namespace === null && common.task === null) throw popBadRequest('namespace or task is required');
        return serve(services, { ...common, scope: 'discovery', queue: null, partition: null, arrivedAt: ctx.arrivedAt }, ctx);
      },
    },
  ];
}
