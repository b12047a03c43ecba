// A stream worker process for the exactly-once fault tests: the official Queen JS `Stream` (loaded through
// official-client.mjs, passed with --import) running an event-time tumbling window over the source queue,
// with one sink message per closed window. Configured by environment; prints one JSON line per reported error.
//   WORKER_URL, WORKER_SOURCE, WORKER_SINK, WORKER_QUERY_ID: where and what
//   WORKER_SLOW_FIRST_MS: the first batch's first message takes this long (a lease running out mid-cycle)
const { Queen, Stream } = await import(process.env.WORKER_CLIENT_URL);

const url = process.env.WORKER_URL;
const slowFirst = Number(process.env.WORKER_SLOW_FIRST_MS ?? 0);
let slowed = false;
const q = new Queen({ url });
const silent = { info() {}, warn() {}, error() {} };
const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

const handle = await Stream.from(q.queue(process.env.WORKER_SOURCE))
  .map(async (m) => {
    if (slowFirst > 0 && !slowed) {
      slowed = true;
      say({ slow: slowFirst });
      await new Promise((r) => setTimeout(r, slowFirst));
    }
    return m.data;
  })
  .windowTumbling({ seconds: 1, eventTime: (m) => m.data.t, idleFlushMs: 0 })
  .aggregate({ count: () => 1, sum: (v) => v.v })
  .map((agg, ctx) => ({ partition: ctx.partition, windowStart: ctx.windowStart, count: agg.count, sum: agg.sum }))
  .to(q.queue(process.env.WORKER_SINK))
  .run({
    queryId: process.env.WORKER_QUERY_ID, url, batchSize: 20, maxPartitions: 2, maxWaitMillis: 300, logger: silent,
    onError: (err, ctx) => say({ error: err?.message ?? String(err), phase: ctx.phase }),
  });
say({ running: true });
process.on('SIGTERM', async () => {
  await handle.stop();
  process.exit(0);
});
