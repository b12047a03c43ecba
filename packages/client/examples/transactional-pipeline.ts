/**
 * Example: a transactional pipeline stage. Pop a batch from `raw`, transform it, then in ONE transaction
 * push the results to `enriched` and ack the inputs: either both happen or neither, so a crash between
 * the two can neither lose an input nor duplicate an output.
 *
 *   npx tsx packages/client/examples/transactional-pipeline.ts [brokerUrl]
 */
import { pathToFileURL } from 'node:url';
import { Queen } from '../src/index.js';

interface Reading {
  sensor: string;
  celsius: number;
}

interface Enriched extends Reading {
  fahrenheit: number;
}

/** Moves every reading from `<prefix>.raw` to `<prefix>.enriched`; returns how many were moved. */
export async function run(url: string, prefix = 'examples.sensors', count = 25): Promise<{ moved: number; transactions: number }> {
  const client = new Queen({ url, handleSignals: false });
  const raw = `${prefix}.raw`;
  const enriched = `${prefix}.enriched`;
  try {
    await client.queue<Reading>(raw).push(Array.from({ length: count }, (_, i) => ({ data: { sensor: `s${i}`, celsius: i } })));
    let moved = 0;
    let transactions = 0;
    for (;;) {
      const batch = await client.queue<Reading>(raw).batch(10).wait(false).pop();
      if (batch.length === 0) break;
      const outputs = batch.map((m) => ({ data: { ...m.data, fahrenheit: m.data.celsius * 1.8 + 32 } satisfies Enriched }));
      await client.transaction().queue<Enriched>(enriched).push(outputs).ack(batch).commit();
      moved += batch.length;
      transactions += 1;
    }
    return { moved, transactions };
  } finally {
    await client.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(await run(process.argv[2] ?? process.env.QUEEN_URL ?? 'http://localhost:6632'));
}
