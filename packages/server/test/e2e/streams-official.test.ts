/**
 * The official Queen JS `Stream` (../shared/compat, unchanged) against our broker: every behaviour of
 * STREAMS.md 7, with the bounds of the official test suite.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { useBroker } from '../support/harness.js';
import { drainAtLeast, drainQueue, eventually, loadOfficial, quietLogger, type OfficialHandle, type OfficialModule, type OfficialQueen, type OfficialStream } from '../support/streams.js';

const setup = useBroker();
let official: OfficialModule;
let q: OfficialQueen;
const handles: OfficialHandle[] = [];

before(async () => {
  official = await loadOfficial();
});
after(async () => {
  for (const h of handles) await h.stop().catch(() => undefined);
  await q?.close().catch(() => undefined);
});

/** A fresh queue name with the official harness's `test-` prefix. */
const name = (what: string): string => `test-${what}-${randomUUID().slice(0, 8)}`;

function queen(): OfficialQueen {
  q ??= new official.Queen({ url: setup.broker.url });
  return q;
}

/** Runs a chain with the official runner; records the handle for clean-up. */
async function run(chain: OfficialStream, options: Record<string, unknown> = {}): Promise<{ handle: OfficialHandle; errors: unknown[] }> {
  const logger = quietLogger();
  const errors: unknown[] = [];
  const handle = await chain.run({
    queryId: name('query'), url: setup.broker.url, logger, maxWaitMillis: 300,
    onError: (err: unknown) => errors.push(err), ...options,
  });
  handles.push(handle);
  return { handle, errors };
}

async function source(partitions: Record<string, unknown[]>, queueName = name('src')): Promise<string> {
  await queen().queue(queueName).create();
  for (const [partition, values] of Object.entries(partitions)) {
    await queen().queue(queueName).partition(partition).push(values.map((data) => ({ data })));
  }
  return queueName;
}

describe('stateless pipelines', () => {
  test('7.1 map + filter into a sink delivers exactly the passing messages, transformed, including ones pushed before run()', async () => {
    const src = await source({ Default: Array.from({ length: 10 }, (_, i) => ({ n: i + 1 })) });
    const sink = name('sink');
    const { handle, errors } = await run(
      official.Stream.from(queen().queue(src)).filter((m: any) => m.data.n % 2 === 0).map((m: any) => ({ doubled: m.data.n * 2 })).to(queen().queue(sink)),
    );
    const out = await drainAtLeast(setup.api, sink, 5, 10_000);
    await handle.stop();
    assert.deepEqual(out.map((m) => m.data.doubled).sort((a, b) => a - b), [4, 8, 12, 16, 20]);
    assert.deepEqual(errors, []);
  });
});
