/**
 * Type-level test of `@queen/client/streams`, compiled (never run) by `npm run typecheck`: the payload type
 * flows from `queen.queue<T>()` into pre-stage messages, the carried value into reducers, gates and terminals,
 * the aggregate's result and the window `ctx` are typed, and chains the runtime rejects do not compile. Every
 * `@ts-expect-error` makes tsc fail if that line ever stops being an error.
 */
import { Queen } from '../../src/index.js';
import { Stream, tokenBucketGate, type StreamHandle, type StreamMetrics, type TokenBucketState, type WindowContext } from '../../src/streams/index.js';

interface Order {
  customer: string;
  amount: number;
  type: 'order' | 'refund';
}

export async function typedStreams(q: Queen, url: string): Promise<void> {
  const handle: StreamHandle = await Stream.from(q.queue<Order>('orders'))
    .filter((m) => m.data.type === 'order')
    .map((m) => ({ customer: m.data.customer, amount: m.data.amount }))
    .windowTumbling({ seconds: 60, gracePeriod: 5, eventTime: (m) => m.createdAt })
    .aggregate({ count: () => 1, sum: (v) => v.amount, max: (v) => v.amount, avg: (v) => v.amount })
    .map((agg, ctx) => {
      const count: number = agg.count;
      const max: number | null = agg.max;
      const hidden: number = agg.__avg_count;
      const start: number = ctx.windowStart;
      const key: string = ctx.windowKey;
      // @ts-expect-error: not a field of this aggregate
      void agg.min;
      return { partition: ctx.partition, count, max, hidden, start, key };
    })
    .to(q.queue('orders.per_minute'))
    .run({ queryId: 'orders.per_minute', url, batchSize: 200 });
  const m: StreamMetrics = handle.metrics();
  const id: string | null = m.serverQueryId;
  void id;
  await handle.stop();

  // Reduce: the accumulator type comes from `initial`; the value from the last pre-stage map.
  await Stream.from(q.queue<Order>('orders'))
    .map((m) => m.data.amount)
    .windowSession({ gap: 30 })
    .reduce((acc, amount) => ({ total: acc.total + amount }), { total: 0 })
    .foreach((acc, ctx: WindowContext) => {
      const total: number = acc.total;
      void total;
      void ctx.windowEnd;
    })
    .run({ queryId: 'sessions', url });

  // Gates: value from the pre stage, typed state; the post stage gets (value, ctx) without window fields.
  await Stream.from(q.queue<Order>('requests'))
    .map((m) => m.data)
    .gate(tokenBucketGate<Order>({ capacity: 10, refillPerSec: 5, costFn: (o) => o.amount }))
    .map((order, ctx) => ({ who: order.customer, window: ctx.windowKey }))
    .to(q.queue('allowed'), { partition: (v) => v.who })
    .run({ queryId: 'limit', url });
  Stream.from(q.queue<Order>('requests')).gate<TokenBucketState>((order, ctx) => {
    const tokens: number | undefined = ctx.state.tokens;
    return { allow: order.amount < (tokens ?? 0) };
  });

  // Pre-stage functions see the source message, whatever came before.
  Stream.from(q.queue<Order>('orders'))
    .map((m) => m.data.amount)
    .filter((m) => m.data.customer !== '')
    .keyBy((m) => m.data.customer);

  // @ts-expect-error: reduce/aggregate need a window first
  Stream.from(q.queue<Order>('orders')).aggregate({ count: () => 1 });
  // @ts-expect-error: nothing follows a terminal but run()
  Stream.from(q.queue<Order>('orders')).foreach(() => undefined).map(() => 1);
  // @ts-expect-error: a gate cannot be followed by a window
  Stream.from(q.queue<Order>('orders')).gate(() => true).windowTumbling({ seconds: 1 });
  // @ts-expect-error: keyBy comes before the reducer
  Stream.from(q.queue<Order>('orders')).windowTumbling({ seconds: 1 }).aggregate({ count: () => 1 }).keyBy(() => 'k');
  // @ts-expect-error: extractors receive the carried value (a number here), not the message
  Stream.from(q.queue<Order>('orders')).map((m) => m.data.amount).windowTumbling({ seconds: 1 }).aggregate({ sum: (v) => v.data });
  // @ts-expect-error: cron units are checked
  Stream.from(q.queue<Order>('orders')).windowCron({ every: 'fortnight' });
  // @ts-expect-error: onLate is drop or include
  Stream.from(q.queue<Order>('orders')).windowTumbling({ seconds: 1, onLate: 'queue' });
  // @ts-expect-error: queryId and url are required
  await Stream.from(q.queue<Order>('orders')).run({ queryId: 'x' });
}
