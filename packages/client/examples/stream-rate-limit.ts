/**
 * Example: a rate limiter with `.gate()`. Requests for one tenant go to one partition; a token bucket of 5
 * with 5 tokens/s lets a burst of 5 through and paces the rest. A denied request is not dropped: it stays
 * leased and comes back, in order, when the queue's short lease (1 s) expires.
 *
 *   npx tsx packages/client/examples/stream-rate-limit.ts [brokerUrl]
 */
import { pathToFileURL } from 'node:url';
import { Queen } from '../src/index.js';
import { Stream, tokenBucketGate } from '../src/streams/index.js';

interface Request {
  tenant: string;
  n: number;
}

/** Sends `count` requests of one tenant through the limiter; returns the order they came out in and how long it took. */
export async function run(url: string, queue = 'examples.requests', count = 12): Promise<{ order: number[]; millis: number; denials: number }> {
  const queen = new Queen({ url, handleSignals: false });
  try {
    await queen.queue(queue).config({ leaseTime: 1, retryLimit: 100 }).create();
    await queen.queue<Request>(queue).partition('tenant-a').push(Array.from({ length: count }, (_, n) => ({ data: { tenant: 'tenant-a', n } })));
    const order: number[] = [];
    const started = Date.now();
    const stream = await Stream.from(queen.queue<Request>(queue))
      .map((m) => m.data)
      .gate(tokenBucketGate<Request>({ capacity: 5, refillPerSec: 5 }))
      .foreach((req) => void order.push(req.n))
      .run({ queryId: `${queue}.limiter`, url, maxWaitMillis: 300 });
    while (order.length < count) await new Promise((r) => setTimeout(r, 50));
    const millis = Date.now() - started;
    await stream.stop();
    return { order, millis, denials: stream.metrics().gateDenialsTotal };
  } finally {
    await queen.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const url = process.argv[2] ?? process.env.QUEEN_URL ?? 'http://localhost:6632';
  console.log(await run(url));
}
