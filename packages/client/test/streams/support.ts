/**
 * Fixtures of the streaming SDK's end-to-end tests: a client, sources filled per partition, runs that collect
 * their errors and are stopped after the file, and the server suites' sink draining and polling helpers.
 */
import { after } from 'node:test';
import { uniqueQueue, type BrokerSetup } from '../../../server/test/support/harness.js';
import { Queen } from '../../src/index.js';
import type { QueueOptions } from '../../src/index.js';
import type { RunOptions, StreamHandle } from '../../src/streams/index.js';

export { drainAtLeast, drainQueue, eventually } from '../../../server/test/support/streams.js';

/** Anything with `run()`. */
interface Runnable {
  run(options: RunOptions): Promise<StreamHandle>;
}

/** A silent logger that keeps the errors it is given. */
function quiet() {
  const errors: unknown[] = [];
  return { info() {}, warn() {}, error: (msg: string, meta?: object) => void errors.push([msg, meta]), errors };
}

/** Per-file helpers bound to a broker set-up. */
export function streamsKit(setup: BrokerSetup) {
  const handles: StreamHandle[] = [];
  let client: Queen | undefined;
  after(async () => {
    for (const h of handles) await h.stop().catch(() => undefined);
    await client?.close().catch(() => undefined);
  });
  const queen = (): Queen => (client ??= new Queen({ url: setup.broker.url, handleSignals: false }));
  return {
    queen,
    name: (what: string) => uniqueQueue(`test-${what}`),
    /** Creates a queue and pushes `values` to each named partition, in order. */
    async source(partitions: Record<string, unknown[]>, options: QueueOptions = {}, queueName = uniqueQueue('test-src')): Promise<string> {
      await queen().queue(queueName).config(options).create();
      for (const [partition, values] of Object.entries(partitions)) {
        for (let i = 0; i < values.length; i += 1000) await queen().queue(queueName).partition(partition).push(values.slice(i, i + 1000).map((data) => ({ data })));
      }
      return queueName;
    },
    /** Pushes values to one partition now. */
    async push(queueName: string, partition: string, values: unknown[]): Promise<void> {
      await queen().queue(queueName).partition(partition).push(values.map((data) => ({ data })));
    },
    /** Runs a chain with a fresh queryId (unless given), a short long-poll and an error collector. */
    async run(chain: Runnable, options: Partial<RunOptions> = {}): Promise<{ handle: StreamHandle; errors: unknown[]; logged: unknown[] }> {
      const errors: unknown[] = [];
      const logger = quiet();
      const handle = await chain.run({ queryId: uniqueQueue('test-query'), url: setup.broker.url, maxWaitMillis: 300, logger, onError: (e) => void errors.push(e), ...options });
      handles.push(handle);
      return { handle, errors, logged: logger.errors };
    },
  };
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sums a field over values. */
export const total = (values: Array<Record<string, any>>, field: string): number => values.reduce((s, v) => s + (v[field] as number), 0);
