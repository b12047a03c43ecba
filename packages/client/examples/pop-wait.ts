/**
 * Example: push a message, then pop it with a long poll (the seed's first example).
 *
 *   npx tsx packages/client/examples/pop-wait.ts [brokerUrl]     (or QUEEN_URL; default http://localhost:6632)
 *
 * In your own code the import is `import { Queen } from '@queen/client'`.
 */
import { pathToFileURL } from 'node:url';
import { Queen } from '../src/index.js';

interface Greeting {
  text: string;
}

/** Pushes one greeting to `queue` and pops it back with wait(true). */
export async function run(url: string, queue = 'examples.pop-wait'): Promise<Greeting[]> {
  const client = new Queen({ url, handleSignals: false });
  try {
    await client.queue<Greeting>(queue).push([{ data: { text: 'hello queen' } }]);
    const messages = await client.queue<Greeting>(queue).batch(1).wait(true).pop();
    await client.ack(messages);
    return messages.map((m) => m.data);
  } finally {
    await client.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const url = process.argv[2] ?? process.env.QUEEN_URL ?? 'http://localhost:6632';
  console.log(await run(url));
}
