/**
 * The message routes (docs/api.md 7.4): listing, detail, delete, requeue from the DLQ, move to the DLQ. A partition
 * id that is not a UUID finds nothing ("Message not found"), it never causes a 500.
 */
import type { Reply, Reply as ApiReply } from '@queen/client/api';
import { invalid } from '../../errors.js';
import { adminNotFound } from '../errors.js';
import { consumptionMode } from '../../core/message-status.js';
import { decodeListPosition, describeMessage, encodeListPosition, listMessages, messageKey, type ListPosition, type MessageSummary } from '../../core/messages.js';
import { effectiveGroup } from '../../core/names.js';
import { isSealed, SEALED_PREFIX } from '../../core/payload-cipher.js';
import { traceContextFields } from '../../core/trace-context.js';
import type { RouteContext } from '../context.js';
import type { Query } from '../query.js';
import { pageOf } from '../pagination.js';
import type { Route } from '../route.js';
import { timestampParam } from './listing.js';
import type { MessageFilter } from '../../core/catalog.js';

const MESSAGE_NOT_FOUND = 'Message not found';

function listFilter(query: Query): MessageFilter {
  return {
    queue: query.string('queue'),
    partition: query.string('partition'),
    namespace: query.string('ns') ?? query.string('namespace'),
    task: query.string('task'),
    from: timestampParam(query, 'from'),
    to: timestampParam(query, 'to'),
  };
}

/** `cursor`: the `nextCursor` of a previous page (absent or empty: from the start); anything else is a 400. */
function cursorParam(query: Query): ListPosition | null {
  const raw = query.string('cursor');
  if (raw === null || raw === '') return null;
  const position = decodeListPosition(raw);
  if (position === null) throw invalid('Invalid cursor');
  return position;
}


/** The path of the route that serves one message in full (docs/api.md 7.4), for listings that left its payload out. */
export function messagePath(partitionId: string, transactionId: string): string {
  return `/api/v1/messages/${partitionId}/${encodeURIComponent(transactionId)}`;
}

/** `preview`: absent or 0 = no preview; else an integer from 1 to 1000 (openapi.json), otherwise a 400 (query-rules.ts). */
const previewOf = (query: Query): number => query.number('preview')!;

/**
 * The preview fields (only when asked for): the payload's JSON text cut to `chars` characters (a sealed
 * payload opened first; null when it cannot be), whether it was cut, and the stored size in bytes.
 */
function previewWire(m: MessageSummary, chars: number, payloads: RouteContext['payloads']): Pick<Reply<'listMessages'>['messages'][number], 'payloadPreview' | 'payloadTruncated' | 'payloadBytes'> {
  if (chars === 0 || m.payloadHead === null) return {};
  if (!isSealed(m.payloadHead)) {
    // The head is the first `chars` characters: it was cut when the whole text has more bytes than it.
    return { payloadPreview: m.payloadHead, payloadTruncated: Buffer.byteLength(m.payloadHead) < (m.payloadBytes ?? 0), payloadBytes: m.payloadBytes };
  }
  let text: string | null;
  try {
    text = payloads.text(m.payloadHead);
  } catch {
    text = null;
  }
  return { payloadPreview: text?.slice(0, chars) ?? null, payloadTruncated: text !== null && text.length > chars, payloadBytes: m.payloadBytes };
}

function summaryWire(m: MessageSummary, chars: number, payloads: RouteContext['payloads']): Reply<'listMessages'>['messages'][number] {
  return {
    id: m.id, transactionId: m.transactionId, partitionId: m.partitionId, queuePath: `${m.queue}/${m.partition}`,
    queue: m.queue, partition: m.partition, namespace: m.namespace, task: m.task, status: m.status,
    queueStatus: m.queueStatus, busStatus: m.busStatus, traceId: m.traceId, producerSub: m.producerSub,
    ...traceContextFields(m.traceContext), queuePriority: m.priority, createdAt: m.createdAt, leaseExpiresAt: m.leaseExpiresAt, ...previewWire(m, chars, payloads),
  };
}

/** The message routes. */
export function messageRoutes(core: RouteContext): Route[] {
  const admin = core.messageAdmin;
  return [
    {
      method: 'GET',
      path: '/api/v1/messages',
      access: 'READ_ONLY',
      async handle({ query, signal }) {
        const filter = listFilter(query);
        const { limit, offset } = pageOf(query);
        const status = query.string('status');
        const after = cursorParam(query);
        const chars = previewOf(query);
        const preview = chars > 0 ? { chars, sealedPrefix: SEALED_PREFIX } : undefined;
        const { page, mode } = await core.catalog.snapshot(async (reads) => {
          const reader = {
            page: (params: { limit: number; offset: number; after: ListPosition | null }) => reads.messageList({ filter, ...params, ...(preview === undefined ? {} : { preview }) }),
            cursors: (partitionIds: string[]) => reads.cursorFactsFind({ partitionIds }),
          };
          return {
            page: await listMessages(reader, { status, limit, offset, after, aborted: () => signal.aborted }),
            mode: filter.queue === null ? { hasQueueMode: false, busGroupsCount: 0 } : await reads.queueConsumerMode({ queue: filter.queue }),
          };
        });
        return {
          status: 200,
          body: {
            messages: page.messages.map((m) => summaryWire(m, chars, core.payloads)),
            mode: consumptionMode(mode.hasQueueMode, mode.busGroupsCount),
            nextCursor: page.next === null ? null : encodeListPosition(page.next),
          } satisfies ApiReply<'listMessages'>,
        };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/messages/:partitionId/:transactionId',
      access: 'READ_ONLY',
      async handle({ params }) {
        const key = messageKey(params.partitionId ?? '', params.transactionId ?? '');
        const facts = key === null ? null : await core.catalog.messageDescribe(key);
        if (facts === null) throw adminNotFound({ error: MESSAGE_NOT_FOUND });
        const detail = describeMessage(facts);
        return {
          status: 200,
          body: {
            id: facts.id, transactionId: facts.transactionId, partitionId: facts.partitionId,
            queuePath: `${facts.queue}/${facts.partition}`, queue: facts.queue, partition: facts.partition,
            namespace: facts.namespace, task: facts.task, status: detail.status, payload: core.payloads.value(facts.payload),
            isEncrypted: isSealed(facts.payload), traceId: facts.traceId, producerSub: facts.producerSub,
            ...traceContextFields(facts.traceContext), createdAt: facts.createdAt,
            errorMessage: detail.errorMessage, retryCount: detail.retryCount, leaseExpiresAt: detail.leaseExpiresAt,
            queueConfig: facts.queueConfig, mode: detail.mode, consumerGroups: detail.consumerGroups,
          } satisfies ApiReply<'getMessage'>,
        };
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/messages/:partitionId/:transactionId',
      access: 'READ_WRITE',
      async handle({ params }) {
        const partitionId = params.partitionId ?? '';
        const transactionId = params.transactionId ?? '';
        const deleted = await admin.delete(partitionId, transactionId);
        if (!deleted) throw adminNotFound({ success: false, partitionId, transactionId, message: MESSAGE_NOT_FOUND });
        return { status: 200, body: { success: true, partitionId, transactionId, message: 'Message deleted successfully' } satisfies ApiReply<'deleteMessage'> };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/messages/:partitionId/:transactionId/retry',
      access: 'READ_WRITE',
      body: 'optional',
      async handle({ params }) {
        const partitionId = params.partitionId ?? '';
        const transactionId = params.transactionId ?? '';
        const result = await admin.requeue(partitionId, transactionId);
        switch (result.outcome) {
          case 'requeued':
            return {
              status: 200,
              body: { success: true, partitionId, transactionId, newTransactionId: result.newTransactionId, messageId: result.messageId, dlqEntriesRemoved: result.dlqEntriesRemoved } satisfies ApiReply<'retryMessage'>,
            };
          case 'not_found':
            throw adminNotFound({ success: false, error: MESSAGE_NOT_FOUND });
          case 'not_in_dlq':
            return { status: 200, body: { success: false, error: 'Message is not in the DLQ' } satisfies ApiReply<'retryMessage'> };
          case 'failed':
            return { status: 200, body: { success: false, error: result.error } satisfies ApiReply<'retryMessage'> };
        }
      },
    },
    {
      method: 'POST',
      path: '/api/v1/messages/:partitionId/:transactionId/dlq',
      access: 'READ_WRITE',
      body: 'optional',
      async handle({ params, body }) {
        const partitionId = params.partitionId ?? '';
        const transactionId = params.transactionId ?? '';
        const group = typeof body.consumerGroup === 'string' ? body.consumerGroup : null;
        const error = typeof body.error === 'string' ? body.error : null;
        const outcome = await admin.moveToDlq(partitionId, transactionId, group, error);
        switch (outcome) {
          case 'moved':
            return { status: 200, body: { success: true, partitionId, transactionId, consumerGroup: effectiveGroup(group), dlq: true } satisfies ApiReply<'moveMessageToDlq'> };
          case 'not_found':
            throw adminNotFound({ success: false, error: MESSAGE_NOT_FOUND });
          case 'not_head':
            return { status: 200, body: { success: false, error: 'Message is not at the head of the consumer group' } satisfies ApiReply<'moveMessageToDlq'> };
          case 'consumed':
            return { status: 200, body: { success: false, error: 'Message already consumed by this consumer group' } satisfies ApiReply<'moveMessageToDlq'> };
        }
      },
    },
  ];
}
