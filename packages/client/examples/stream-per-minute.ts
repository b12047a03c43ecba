/**
 * Example: a windowed aggregate with the streaming SDK. Orders flow in; per partition (customer) and per
 * 1 s tumbling window the stream emits count, sum and max to a sink queue. State, outputs and the source ack
 * of every step commit together in the broker, so each order counts exactly once, whatever crashes.
 *
 *   npx tsx packages/client/examples/stream-per-minute.ts [brokerUrl]
 *
 * In your own code: `import { Queen } from '@queen/client'` and `import { Stream } from '@queen/client/streams'`.
 */
import { pathToFileURL } from 'node:url';
import { Queen } from '../src/index.js';
import { Stream } from '../src/streams/index.js';

interface Order {
  customer: string;
  amount: number;
  type: 'order' | 'refund';
}

/** One closed window of one customer. */
export interface CustomerTotals {
  customer: string;
  windowStart: string;
  count: number;
  sum: number;
  max: number | null;
}

/** Pushes `orders` spread over three customers, runs the stream until every order is counted, returns the per-customer totals. */
export async function run(url: string, prefix = 'examples.orders', orders = 30): Promise<Record<string, { count: number; sum: number }>> {
  const queen = new Queen({ url, handleSignals: false });
  const source = `${prefix}.in`;
  const sink = `${prefix}.totals`;
  try {
    for (let i = 0; i < orders; i++) {
      const customer = `c${i % 3}`;
      await queen.queue<Order>(source).partition(customer).push([{ data: { customer, amount: i, type: i % 5 === 4 ? 'refund' : 'order' } }]);
    }
    const stream = await Stream.from(queen.queue<Order>(source))
      .filter((m) => m.data.type === 'order')
      .map((m) => ({ amount: m.data.amount }))
      .windowTumbling({ seconds: 1, idleFlushMs: 300 })
      .aggregate({ count: () => 1, sum: (v) => v.amount, max: (v) => v.amount })
      .map((agg, ctx): CustomerTotals => ({ customer: ctx.partition, windowStart: ctx.windowKey, ...agg }))
      .to(queen.queue(sink))
      .run({ queryId: `${prefix}.per-customer`, url, maxWaitMillis: 300, logger: { info() {}, warn() {}, error: console.error } });

    // Read the sink with an ordinary consumer until the totals cover every counted order.
    const expected = Array.from({ length: orders }, (_, i) => i).filter((i) => i % 5 !== 4).length;
    const totals: Record<string, { count: number; sum: number }> = {};
    let seen = 0;
    while (seen < expected) {
      const batch = await queen.queue<CustomerTotals>(sink).group('example-reader').batch(100).timeoutMillis(2000).pop();
      for (const m of batch) {
        const t = (totals[m.data.customer] ??= { count: 0, sum: 0 });
        t.count += m.data.count;
        t.sum += m.data.sum;
        seen += m.data.count;
      }
      if (batch.length > 0) await queen.ack(batch, true, { group: 'example-reader' });
    }
    await stream.stop();
    return totals;
  } finally {
    await queen.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const url = process.argv[2] ?? process.env.QUEEN_URL ?? 'http://localhost:6632';
  console.log(await run(url));
}
