/**
 * The three pop routes (docs/api.md 5; the seed document is normative). Parameters come from the query string;
 * a 200 carries the batch, anything else delivered nothing and is a bare 204 with X-Queen-Empty-Reason.
 */
import { invalid } from '../../errors.js';
import { QUEUE_MODE } from '../../core/names.js';
import type { ClaimedMessage, PopRequest, PopResult } from '../../core/pop.js';
import { traceContextJson } from '../../core/trace-context.js';
import type { RouteContext } from '../context.js';
import { partitionAttribute, traced } from '../tracing.js';
import type { Query } from '../query.js';
import { checkedName } from '../text.js';
import type { Reply, RequestContext, Route } from '../route.js';

/** Builds the 200 body as text: payloads are JSON already and are spliced in verbatim. */
export function popBody(queue: string, group: string, leaseId: string, messages: ClaimedMessage[]): string {
  const groupJson = JSON.stringify(group);
  const leaseJson = JSON.stringify(leaseId);
  const parts: string[] = [];
  let partitions = 0;
  let lastPartition = '';
  for (const m of messages) {
    if (m.partitionId !== lastPartition) {
      partitions += 1;
      lastPartition = m.partitionId;
    }
    parts.push(
      `{"id":"${m.messageId}","transactionId":${JSON.stringify(m.transactionId)},"traceId":${m.traceId === null ? 'null' : `"${m.traceId}"`},` +
        `"data":${m.payload},"producerSub":${m.producerSub === null ? 'null' : JSON.stringify(m.producerSub)},` +
        `"createdAt":"${m.createdAt}","partitionId":"${m.partitionId}","partition":${JSON.stringify(m.partitionName)},` +
        `"leaseId":${leaseJson},"consumerGroup":${groupJson}${traceContextJson(m.traceContext)}}`,
    );
  }
  const first = messages[0]!;
  return `{"success":true,"queue":${JSON.stringify(queue)},"partition":${JSON.stringify(first.partitionName)},` +
    `"partitionId":"${first.partitionId}","leaseId":${leaseJson},"consumerGroup":${groupJson},` +
    `"messages":[${parts.join(',')}],"partitionsClaimed":${partitions}}`;
}

/**
 * A name parameter of the pop routes, checked before anything runs (no queue row is written for a 400). An
 * optional one absent or `""` keeps its meaning (queue mode for a group).
 */
function popName(value: string, field: string): string {
  return checkedName(value, field);
}

function optionalName(query: Query, key: string): string | null {
  const value = query.string(key);
  return value === null || value === '' ? value : popName(value, key);
}

/** Reads the shared parameters of the three routes (docs/api.md 5.2). */
function parseCommon(query: Query): Omit<PopRequest, 'scope' | 'queue' | 'partition' | 'arrivedAt'> {
  // batch, timeout, partitions, leaseSeconds, wait and autoAck were read at the edge by the document's rules
  // (query-rules.ts, docs/configuration.md "Request parameters"): a value that cannot mean anything is a 400
  // naming the parameter and its range; partitions <= 0 is no cap, leaseSeconds <= 0 the queue's lease, a
  // negative timeout 0 (one attempt); values above a ceiling are capped; each has its default.
  const group = optionalName(query, 'consumerGroup');
  return {
    namespace: optionalName(query, 'namespace'),
    task: optionalName(query, 'task'),
    consumerGroup: group,
    batch: query.number('batch')!,
    maxPartitions: query.number('partitions')!,
    wait: query.bool('wait')!,
    timeoutMs: query.number('timeout')!,
    leaseSeconds: query.number('leaseSeconds')!,
    autoAck: query.bool('autoAck')!,
    subscriptionMode: query.string('subscriptionMode'),
    subscriptionFrom: query.string('subscriptionFrom'),
  };
}

async function serve(core: RouteContext, request: PopRequest, ctx: RequestContext): Promise<Reply> {
  const result: PopResult = await traced(core.tracing, ctx, () => ({
    operation: 'receive',
    queue: request.queue,
    links: [],
    attributes: { 'messaging.consumer.group.name': request.consumerGroup ?? QUEUE_MODE, 'queen.pop.batch': request.batch },
  }), async (span) => {
    const popped = await core.pop.pop(request, ctx.signal, span);
    if (span !== null) {
      const messages = popped.kind === 'messages' ? popped.messages : [];
      span.set({ 'messaging.batch.message_count': messages.length, ...partitionAttribute(messages.map((m) => m.partitionName)) });
      span.link(messages.map((m) => m.traceContext));
    }
    return popped;
  });
  core.metrics.recorder.popped(request, result);
  // A client that left meanwhile gets an empty answer: core handed its batch back.
  if (result.kind === 'empty') return { status: 204, headers: { 'X-Queen-Empty-Reason': result.reason } };
  return { status: 200, body: popBody(request.queue ?? '', result.group, result.leaseId, result.messages) };
}

/** The pop routes. */
export function popRoutes(core: RouteContext): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/pop/queue/:queue/partition/:partition',
      access: 'READ_WRITE',
      popShape: true,
      handle(ctx) {
        const queue = popName(ctx.params.queue ?? '', 'queue name');
        const partition = popName(ctx.params.partition ?? '', 'partition name');
        return serve(core, { ...parseCommon(ctx.query), scope: 'partition', queue, partition, namespace: null, task: null, arrivedAt: ctx.arrivedAt }, ctx);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/pop/queue/:queue',
      access: 'READ_WRITE',
      popShape: true,
      handle(ctx) {
        const queue = popName(ctx.params.queue ?? '', 'queue name');
        return serve(core, { ...parseCommon(ctx.query), scope: 'queue', queue, partition: null, namespace: null, task: null, arrivedAt: ctx.arrivedAt }, ctx);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/pop',
      access: 'READ_WRITE',
      popShape: true,
      handle(ctx) {
        const common = parseCommon(ctx.query);
        if (common.namespace === null && common.task === null) throw invalid('namespace or task is required');
        return serve(core, { ...common, scope: 'discovery', queue: null, partition: null, arrivedAt: ctx.arrivedAt }, ctx);
      },
    },
  ];
}
