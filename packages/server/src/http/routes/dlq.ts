/**
 * `GET /api/v1/dlq` (docs/api.md 7.5): every filter honoured, newest failure first, with the total. The page carries
 * at most LISTING_MAX_BYTES of payloads: an entry past that budget has `data: null`, `dataOmitted: true`, its
 * size and the path of the message route that serves it.
 */
import type { Reply as ApiReply } from '@queen/client/api';
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';
import { pageOf } from '../pagination.js';
import { omittedFlags } from '../../core/messages.js';
import { messagePath } from './messages.js';
import { timestampParam } from './listing.js';

/** The DLQ listing route. */
export function dlqRoutes(core: RouteContext): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/dlq',
      access: 'READ_ONLY',
      async handle({ query }) {
        const { limit, offset } = pageOf(query);
        const { entries, total } = await core.catalog.deadLetterList({
          filter: {
            queue: query.string('queue'),
            consumerGroup: query.string('consumerGroup'),
            partition: query.string('partition'),
            from: timestampParam(query, 'from'),
            to: timestampParam(query, 'to'),
          },
          limit,
          offset,
          maxBytes: core.bounds.listingMaxBytes,
        });
        const messages = entries.map(({ payload, ...entry }) => ({
          id: entry.id, transactionId: entry.transactionId, partitionId: entry.partitionId, queue: entry.queue,
          partition: entry.partition, consumerGroup: entry.consumerGroup, errorMessage: entry.errorMessage,
          retryCount: entry.retryCount, data: payload === null ? null : core.payloads.value(payload),
          ...(entry.payloadOmitted ? omittedFlags('data', entry.payloadBytes, messagePath(entry.partitionId, entry.transactionId)) : {}),
          producerSub: entry.producerSub, createdAt: entry.createdAt, failedAt: entry.failedAt,
        }));
        return { status: 200, body: { messages, total, pagination: { limit, offset } } satisfies ApiReply<'listDlq'> };
      },
    },
  ];
}
