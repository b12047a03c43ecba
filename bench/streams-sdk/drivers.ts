/**
 * Stream drivers for the streams benchmark: the same two pipelines — (a) map → sink, (b) a 1 s tumbling
 * count/sum aggregate → sink — built once with our SDK (`@queen/client/streams`) and once with the official
 * client's `Stream` (../shared/compat, loaded through the server tests' resolution hook). A scenario picks a
 * driver by name and gets a running handle with the same `stop()`/`metrics().messagesTotal` shape from both.
 */
import { Queen } from '../../packages/client/src/index.js';
import { Stream } from '../../packages/client/src/streams/index.js';

/** The pipelines a driver can run. */
export type Pipeline = 'map-sink' | 'tumbling';

/** What the benchmark reads from a running stream. */
export interface RunningStream {
  stop(): Promise<void>;
  metrics(): { messagesTotal: number; cyclesTotal: number; errorsTotal: number };
}

/** One way of running the pipelines. */
export interface StreamDriver {
  name: 'ours' | 'official';
  run(pipeline: Pipeline, options: { url: string; source: string; sink: string; queryId: string; batchSize: number; maxPartitions: number }): Promise<RunningStream>;
  close(): Promise<void>;
}

const quiet = { info() {}, warn() {}, error: (msg: string, meta?: unknown) => console.error(msg, meta) };

/** Our SDK. */
export function oursDriver(url: string): StreamDriver {
  const queen = new Queen({ url, handleSignals: false });
  return {
    name: 'ours',
    run(pipeline, o) {
      const src = Stream.from(queen.queue<{ n: number }>(o.source));
      const chain =
        pipeline === 'map-sink'
          ? src.map((m) => ({ n: m.data.n, doubled: m.data.n * 2 })).to(queen.queue(o.sink))
          : src.windowTumbling({ seconds: 1, idleFlushMs: 1000 }).aggregate({ count: () => 1, sum: (v) => v.n }).to(queen.queue(o.sink));
      return chain.run({ queryId: o.queryId, url: o.url, batchSize: o.batchSize, maxPartitions: o.maxPartitions, logger: quiet });
    },
    close: () => queen.close(),
  };
}

/** The official client's Stream, unchanged. */
export async function officialDriver(url: string): Promise<StreamDriver> {
  // @ts-expect-error: a plain JS module without declarations (it only registers a resolution hook)
  await import('../../packages/server/test/support/official-client.mjs');
  const { officialClientUrl } = await import('../../packages/server/test/support/streams.js');
  const official = (await import(officialClientUrl())) as { Queen: new (o: { url: string }) => any; Stream: any };
  const queen = new official.Queen({ url });
  return {
    name: 'official',
    run(pipeline, o) {
      const src = official.Stream.from(queen.queue(o.source));
      const chain =
        pipeline === 'map-sink'
          ? src.map((m: any) => ({ n: m.data.n, doubled: m.data.n * 2 })).to(queen.queue(o.sink))
          : src.windowTumbling({ seconds: 1, idleFlushMs: 1000 }).aggregate({ count: () => 1, sum: (v: any) => v.n }).to(queen.queue(o.sink));
      return chain.run({ queryId: o.queryId, url: o.url, batchSize: o.batchSize, maxPartitions: o.maxPartitions, logger: quiet });
    },
    close: async () => {
      await queen.close?.();
    },
  };
}
