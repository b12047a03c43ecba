/** `/configure`, queue detail and queue deletion (docs/api.md 4.2, 4.3, 7.2). */
import type { Body, Reply, Reply as ApiReply } from '@queen/client/api';
import { adminNotFound } from '../errors.js';
import { deriveScope } from '../../core/names.js';
import { optionsOf } from '../../core/queue-options.js';
import { parseConfigureOptions } from '../queue-options.js';
import { partitionCounts, sumCounts } from '../../core/queue-stats.js';
import type { RouteContext } from '../context.js';
import { checkedName } from '../text.js';
import type { Checked, Route } from '../route.js';

const ENCRYPTION_WARNING = 'QUEEN_ENCRYPTION_KEY is not set; payloads are stored unencrypted';

/**
 * A configure `namespace`/`task`: non-strings are absent (derived); `""` is kept (the task derived from an
 * undotted name); otherwise the name rule applies (docs/api.md 1.10).
 */
function scopeName(value: unknown, field: 'namespace' | 'task'): string | null {
  if (typeof value !== 'string') return null;
  return value === '' ? value : checkedName(value, field);
}

/** The route of one queue's resource (read, delete). */
export const QUEUE_PATH = '/api/v1/resources/queues/:queue';

/** The queue administration routes of wave 1. */
export function queueRoutes(core: RouteContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/configure',
      access: 'READ_WRITE',
      body: 'required',
      async handle(ctx) {
        const body = ctx.body as Checked<Body<'configure'>, 'queue' | 'options'>; // checked at the edge (validation.ts)
        checkedName(body.queue, 'queue name');
        const options = parseConfigureOptions(body.options);
        const derived = deriveScope(body.queue);
        const { queue, defaultPartitionId } = await core.catalog.queueConfigure({
          name: body.queue,
          namespace: scopeName(body.namespace, 'namespace') ?? derived.namespace,
          task: scopeName(body.task, 'task') ?? derived.task,
          options: { ...options },
        });
        core.queueCache.changed({ queue: queue.name, namespace: queue.namespace, task: queue.task });
        const reply: Reply<'configure'> = {
          configured: true,
          queueId: queue.id,
          partitionId: defaultPartitionId,
          queue: queue.name,
          namespace: queue.namespace,
          task: queue.task,
          options: optionsOf(queue),
        };
        if (options.encryptionEnabled && !core.identity.encryptionConfigured) {
          core.log.warn({ queue: queue.name }, ENCRYPTION_WARNING);
          reply.warning = ENCRYPTION_WARNING;
        }
        return { status: 200, body: reply };
      },
    },
    {
      method: 'GET',
      path: QUEUE_PATH,
      access: 'READ_ONLY',
      async handle({ params }) {
        const found = await core.catalog.queueDescribe({ name: params.queue ?? '' });
        if (found === null) throw adminNotFound({ error: 'Queue not found' });
        const partitions = found.partitions.map((p) => {
          const stats = partitionCounts(p);
          return { id: p.id, name: p.name, createdAt: p.createdAt, stats, oldestMessage: p.oldestMessage, newestMessage: p.newestMessage };
        });
        const { queue } = found;
        return {
          status: 200,
          body: {
            id: queue.id,
            name: queue.name,
            namespace: queue.namespace,
            task: queue.task,
            createdAt: queue.createdAt,
            config: optionsOf(queue),
            partitions,
            totals: sumCounts(partitions.map((p) => p.stats)),
          } satisfies ApiReply<'getQueue'>,
        };
      },
    },
    {
      method: 'DELETE',
      path: QUEUE_PATH,
      access: 'ADMIN',
      async handle({ params }) {
        const name = params.queue ?? '';
        const existed = await core.catalog.queueDelete({ name });
        if (existed) core.queueCache.changed({ queue: name, namespace: null, task: null });
        return { status: 200, body: { deleted: true, queue: name, existed } satisfies ApiReply<'deleteQueue'> };
      },
    },
  ];
}
