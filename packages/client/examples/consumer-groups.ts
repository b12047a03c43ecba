/**
 * Example: consumer-group fan-out. Every named group reads the whole queue through its own cursor, so
 * `billing` and `shipping` each see every order; consumers sharing a group name compete instead.
 *
 *   npx tsx packages/client/examples/consumer-groups.ts [brokerUrl]
 */
import { pathToFileURL } from 'node:url';
import { Queen } from '../src/index.js';

interface Order {
  orderId: string;
  amountCents: number;
}

/** Pushes `count` orders over 4 partitions; two groups consume them all, each with two workers. */
export async function run(url: string, queue = 'examples.orders', count = 40): Promise<Record<string, string[]>> {
  const client = new Queen({ url, handleSignals: false });
  try {
    for (let i = 0; i < count; i++) {
      await client
        .queue<Order>(queue)
        .partition(`customer-${i % 4}`)
        .push({ data: { orderId: `order-${i}`, amountCents: 100 * i } });
    }
    const seen: Record<string, string[]> = { billing: [], shipping: [] };
    await Promise.all(
      Object.keys(seen).map((group) =>
        client
          .queue<Order>(queue)
          .group(group)
          .subscriptionMode('all') // a new group starts at the oldest retained message
          .batch(10)
          .partitions(4)
          .concurrency(2)
          .idleMillis(1500)
          .each()
          .consume(async (order) => {
            seen[group]!.push(order.data.orderId);
          }),
      ),
    );
    return seen;
  } finally {
    await client.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const seen = await run(process.argv[2] ?? process.env.QUEEN_URL ?? 'http://localhost:6632');
  console.log(Object.fromEntries(Object.entries(seen).map(([g, ids]) => [g, ids.length])));
}
