/**
 * Seek (docs/api.md 7.7 rules 3-4): move a consumer group's cursors on every partition of a queue, or on one
 * partition, to the end or to a timestamp. The cursor rules, the lease release and the wake-ups run in
 * `queen.cursor_seek` (sql/functions/cursor_seek.sql); this module reads the body and shapes the answer.
 */
import type { Reply as ApiReply } from '@queen/client/api';
import { invalid } from '../../errors.js';
import { adminNotFound } from '../errors.js';
import { parseTimestamp } from '../../core/timestamps.js';
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';
import { checkedName } from '../text.js';
import type { SeekTarget } from '../../core/catalog.js';

const NEITHER = "Must specify either 'toEnd': true or 'timestamp'";

/**
 * The target of a seek body: `toEnd: true` (it wins over a timestamp sent alongside) or `timestamp`
 * (ISO-8601). With `emptyMeansEnd` (the partition route) a body carrying neither means the end.
 */
export function seekTarget(body: Record<string, unknown>, emptyMeansEnd: boolean): SeekTarget {
  const { toEnd, timestamp } = body;
  if (toEnd === true) return { kind: 'end' };
  if (typeof timestamp === 'string') { // any other type but null is refused at the edge (SeekRequest's marks)
    const at = parseTimestamp(timestamp);
    if (at === null) throw invalid('Invalid timestamp');
    return { kind: 'timestamp', at };
  }
  if (emptyMeansEnd && (toEnd === undefined || toEnd === null)) return { kind: 'end' };
  throw invalid(NEITHER);
}

/** The two seek routes. */
export function seekRoutes(core: RouteContext): Route[] {
  const { catalog } = core;
  return [
    {
      method: 'POST',
      path: '/api/v1/consumer-groups/:group/queues/:queue/seek',
      access: 'READ_WRITE',
      body: 'required',
      async handle({ params, body }) {
        const group = checkedName(params.group ?? '', 'consumerGroup');
        const queue = checkedName(params.queue ?? '', 'queue name');
        const target = seekTarget(body, false);
        const outcome = await catalog.cursorSeek({ group, queue, partition: null, target });
        if (outcome.kind !== 'updated') throw adminNotFound({ success: false, error: 'Queue not found' });
        return {
          status: 200,
          body: {
            success: true,
            consumerGroup: group,
            queueName: queue,
            seekToEnd: target.kind === 'end',
            targetTimestamp: outcome.targetAt,
            partitionsUpdated: outcome.partitions.length,
          } satisfies ApiReply<'seekQueue'>,
        };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek',
      access: 'READ_WRITE',
      body: 'optional',
      async handle({ params, body }) {
        const group = checkedName(params.group ?? '', 'consumerGroup');
        const queue = checkedName(params.queue ?? '', 'queue name');
        const partition = checkedName(params.partition ?? '', 'partition name');
        const target = seekTarget(body, true);
        const outcome = await catalog.cursorSeek({ group, queue, partition, target });
        // A missing queue is reported like a missing partition: the route names a partition.
        if (outcome.kind !== 'updated') throw adminNotFound({ success: false, error: 'Partition not found' });
        const moved = outcome.partitions[0]!;
        return {
          status: 200,
          body: { success: true, consumerGroup: group, queueName: queue, partitionName: moved.name, updated: true, cursorMovedTo: moved.cursorMovedTo } satisfies ApiReply<'seekPartition'>,
        };
      },
    },
  ];
}
