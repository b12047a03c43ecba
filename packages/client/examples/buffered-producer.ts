/**
 * Example: a buffered high-throughput producer. `.buffer()` collects pushes in memory and sends them in
 * batches of `messageCount` (or after `timeMillis`); transactionIds are minted client-side, so a retried
 * batch deduplicates on the broker. `close()` (also run on SIGINT/SIGTERM) flushes what is left.
 *
 *   npx tsx packages/client/examples/buffered-producer.ts [brokerUrl] [messages]
 */
import { pathToFileURL } from 'node:url';
import { Queen } from '../src/index.js';

interface Click {
  user: number;
  at: number;
}

/** Pushes `count` clicks over 8 partitions through the buffer; resolves after close() flushed them. */
export async function run(url: string, queue = 'examples.clicks', count = 5000): Promise<{ pushed: number; flushes: number; millis: number; perSecond: number }> {
  const client = new Queen({ url, handleSignals: false });
  const started = Date.now();
  let confirmed = 0;
  for (let i = 0; i < count; i++) {
    // Each call returns at once ({buffered: true}); a full buffer (maxSize) makes it wait instead.
    await client
      .queue<Click>(queue)
      .partition(`users-${i % 8}`)
      .buffer({ messageCount: 500, timeMillis: 100 })
      .push({ data: { user: i, at: Date.now() } })
      .onSuccess((items) => {
        confirmed += items.length;
      });
  }
  const { flushesPerformed } = client.getBufferStats();
  await client.close();
  const millis = Date.now() - started;
  return { pushed: confirmed, flushes: Math.max(flushesPerformed, client.getBufferStats().flushesPerformed), millis, perSecond: Math.round((count * 1000) / Math.max(1, millis)) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const count = Number(process.argv[3] ?? 5000);
  console.log(await run(process.argv[2] ?? process.env.QUEEN_URL ?? 'http://localhost:6632', 'examples.clicks', count));
}
