/**
 * Our streaming SDK against the official `Stream` on one broker, in one run (issue 15: ours ≥ 1.5× the
 * official for map → sink). For each pipeline and driver, in alternating order: pre-fill a fresh source with
 * N messages over P partitions, start the stream, and time from run() until every source message is committed
 * (`messagesTotal`). Source messages/s and the ratio ours/official are printed as JSON at the end.
 *
 *   npm run build && node --import tsx bench/streams-sdk/compare.ts [--messages 20000] [--partitions 10] [--rounds 2]
 *     [--pipelines map-sink,tumbling] [--url URL]
 *
 * Without --url it starts a broker with an embedded PostgreSQL (bench/src/broker-process.ts). The machine may
 * be shared: compare the ratio, not the absolute figures.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pathOf, routes } from '@queen/client/api';
import { startBroker, type BrokerHandle } from '../dist/broker-process.js';
import { officialDriver, oursDriver, type Pipeline, type StreamDriver } from './drivers.js';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const MESSAGES = flag('messages', 20_000);
const PARTITIONS = flag('partitions', 10);
const ROUNDS = flag('rounds', 2);
const urlAt = args.indexOf('--url');
const pipelinesAt = args.indexOf('--pipelines');
const PIPELINES = (pipelinesAt === -1 ? 'map-sink,tumbling' : args[pipelinesAt + 1]!).split(',') as Pipeline[];
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

async function post(url: string, target: string, body: unknown): Promise<void> {
  const res = await fetch(url + target, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${target}: ${res.status} ${await res.text()}`);
}

async function fill(url: string, queue: string): Promise<void> {
  await post(url, pathOf(routes.configure, {}), { queue, options: { leaseTime: 60 } });
  const perPartition = Math.ceil(MESSAGES / PARTITIONS);
  for (let p = 0; p < PARTITIONS; p++) {
    for (let i = 0; i < perPartition; i += 1000) {
      const n = Math.min(1000, perPartition - i);
      await post(url, pathOf(routes.push, {}), { items: Array.from({ length: n }, (_, k) => ({ queue, partition: `p${p}`, payload: { n: i + k } })) });
    }
  }
}

async function measure(url: string, driver: StreamDriver, pipeline: Pipeline): Promise<number> {
  const id = randomUUID().slice(0, 8);
  const source = `bench-streams-src-${id}`;
  await fill(url, source);
  const total = Math.ceil(MESSAGES / PARTITIONS) * PARTITIONS;
  const started = performance.now();
  const handle = await driver.run(pipeline, { url, source, sink: `bench-streams-sink-${id}`, queryId: `bench-${driver.name}-${id}`, batchSize: 200, maxPartitions: 4 });
  while (handle.metrics().messagesTotal < total) {
    if (performance.now() - started > 300_000) throw new Error(`${driver.name} ${pipeline}: ${handle.metrics().messagesTotal}/${total} after 300 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  const m = handle.metrics();
  await handle.stop();
  const rate = total / seconds;
  console.error(`${driver.name.padEnd(8)} ${pipeline.padEnd(8)} ${total} msgs in ${seconds.toFixed(2)} s = ${Math.round(rate)} msgs/s (${m.cyclesTotal} cycles, ${m.errorsTotal} errors)`);
  return rate;
}

let broker: BrokerHandle | undefined;
const url = urlAt === -1 ? (broker = await startBroker(REPO_ROOT, (line) => console.error(line))).url : args[urlAt + 1]!;
try {
  const drivers = [oursDriver(url), await officialDriver(url)];
  const results: Record<string, Record<string, number[]>> = {};
  for (const pipeline of PIPELINES) {
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate who goes first, so a warming (or busier) machine does not favour one side.
      for (const driver of round % 2 === 0 ? drivers : [...drivers].reverse()) {
        ((results[pipeline] ??= {})[driver.name] ??= []).push(await measure(url, driver, pipeline));
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const summary = Object.fromEntries(
    Object.entries(results).map(([pipeline, by]) => [pipeline, { ours: Math.round(median(by.ours!)), official: Math.round(median(by.official!)), ratio: Number((median(by.ours!) / median(by.official!)).toFixed(2)) }]),
  );
  console.log(JSON.stringify({ messages: MESSAGES, partitions: PARTITIONS, rounds: ROUNDS, summary }, null, 2));
  for (const d of drivers) await d.close();
} finally {
  await broker?.stop();
}
