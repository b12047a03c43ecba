/**
 * Example: the consume loop (pop, handle, ack, repeat), the seed's second example, plus a longer-running
 * loop that stops when the queue has been idle for a second.
 *
 *   npx tsx packages/client/examples/consume-loop.ts [brokerUrl]
 */
import { pathToFileURL } from 'node:url';
import { Queen, type Message } from '../src/index.js';

interface Job {
  id: number;
}

/** Pushes `count` jobs, consumes the first with limit(1), then the rest until idle. */
export async function run(url: string, queue = 'examples.consume-loop', count = 10): Promise<{ first: Job; rest: number[] }> {
  const client = new Queen({ url, handleSignals: false });
  try {
    await client.queue<Job>(queue).push(Array.from({ length: count }, (_, i) => ({ data: { id: i + 1 } })));

    let msgToReturn: Message<Job> | undefined;
    await client
      .queue<Job>(queue)
      .batch(1)
      .limit(1)
      .each()
      .consume(async (msg) => {
        msgToReturn = msg;
      });

    const rest: number[] = [];
    await client
      .queue<Job>(queue)
      .batch(5)
      .idleMillis(1000)
      .each()
      .consume(async (msg) => {
        rest.push(msg.data.id); // acked 'completed' after the handler returns; a throw acks 'failed'
      });
    return { first: msgToReturn!.data, rest };
  } finally {
    await client.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(await run(process.argv[2] ?? process.env.QUEEN_URL ?? 'http://localhost:6632'));
}
