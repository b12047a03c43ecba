/** `DELETE /api/v1/queues/:queue/clear[?partition=<name>]` (docs/api.md 7.3). */
import type { Reply as ApiReply } from '@queen/client/api';
import { adminNotFound } from '../errors.js';
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';

/** The route that empties a queue, or one partition of it (`?partition=`). */
export const QUEUE_CLEAR_PATH = '/api/v1/queues/:queue/clear';

/** The queue clear route. */
export function queueClearRoutes(core: RouteContext): Route[] {
  const admin = core.messageAdmin;
  return [
    {
      method: 'DELETE',
      path: QUEUE_CLEAR_PATH,
      access: 'ADMIN',
      async handle({ params, query }) {
        const queue = params.queue ?? '';
        const partition = query.string('partition');
        const result = await admin.clear(queue, partition);
        if (result.outcome !== 'cleared') {
          throw adminNotFound({ success: false, error: result.outcome === 'queue_not_found' ? 'Queue not found' : 'Partition not found' });
        }
        return { status: 200, body: { success: true, queue, partition, deletedMessages: result.deletedMessages } satisfies ApiReply<'clearQueue'> };
      },
    },
  ];
}
