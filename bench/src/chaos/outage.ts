/**
 * chaos-outage: the failover buffer catching up under load. One broker on an embedded PostgreSQL; a steady
 * push load (--rate msgs/s over --partitions partitions, one sequential producer per partition, batches of
 * 10 on a fixed schedule); after --warmup s PostgreSQL is stopped for --outage s and started again; the load
 * goes on. Measured: messages buffered while down, the peak of `buffered_messages` in /health, and the
 * catch-up time (from PostgreSQL's return until /health says the buffer is empty, load still running).
 * Then every pushed message must be delivered once (queue mode, autoAck) and in order per partition.
 * Target (docs/operations.md): after a 10 s outage under 1 500 msgs/s, empty within 10 s.
 *
 *   node bench/dist/main.js chaos-outage [--rate 1500] [--outage 10] [--warmup 5] [--partitions 15]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathOf, routes } from '@queen/client/api';
import { freePort } from '../broker-process.js';
import { BrokerSlot } from './brokers.js';
import { startEmbeddedDatabase, type ChaosDatabase } from './postgres.js';

const BATCH = 10;

interface Health { status: number; state: string; buffered: number }

async function health(url: string): Promise<Health> {
  try {
    const res = await fetch(`${url}${pathOf(routes.health, {})}`, { signal: AbortSignal.timeout(3000) });
    const body = (await res.json()) as { buffer?: { state: string; buffered_messages: number } };
    return { status: res.status, state: body.buffer?.state ?? 'unknown', buffered: body.buffer?.buffered_messages ?? -1 };
  } catch {
    return { status: 0, state: 'unknown', buffered: -1 };
  }
}

async function post(url: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs `chaos-outage`; returns the exit code (1 when a message was lost, duplicated or reordered, or the target missed). */
export async function outageMain(argv: readonly string[], repoRoot: string): Promise<number> {
  const { values } = parseArgs({ args: [...argv], strict: true, options: {
    rate: { type: 'string' }, outage: { type: 'string' }, warmup: { type: 'string' }, partitions: { type: 'string' },
  } });
  const rate = Number(values.rate ?? 1500);
  const outageS = Number(values.outage ?? 10);
  const warmupS = Number(values.warmup ?? 5);
  const partitions = Array.from({ length: Number(values.partitions ?? 15) }, (_, i) => `p${i}`);
  const everyMs = (1000 * BATCH * partitions.length) / rate;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-outage-'));
  fs.chmodSync(folder, 0o777);
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  let database: ChaosDatabase | undefined;
  let slot: BrokerSlot | undefined;
  try {
    database = await startEmbeddedDatabase(folder, log);
    slot = new BrokerSlot({ name: 'a', port: await freePort(), entry: path.join(repoRoot, 'packages/server/dist/main.js'), repoRoot, folder,
      databaseEnv: database.brokerEnv, log, onUnexpectedExit: (exit) => log(`unexpected exit: ${JSON.stringify(exit)}`) });
    await slot.start();
    const url = slot.url;
    const queue = `outage-${Date.now()}`;
    const pushed = new Map(partitions.map((p) => [p, 0]));
    let running = true;
    let failures = 0;
    const producers = Promise.all(partitions.map(async (partition) => {
      const start = Date.now();
      for (let round = 0; running; round++) {
        const from = pushed.get(partition)! + 1;
        const items = Array.from({ length: BATCH }, (_, i) => ({ queue, partition, transactionId: `${partition}-${from + i}`, payload: { n: from + i } }));
        const res = await post(url, pathOf(routes.push, {}), { items }).catch(() => null);
        if (res?.status === 201) pushed.set(partition, from + BATCH - 1);
        else failures++;
        await res?.text();
        const wait = start + (round + 1) * everyMs - Date.now();
        if (wait > 0) await sleep(wait);
      }
    }));
    const total = (): number => [...pushed.values()].reduce((a, b) => a + b, 0);
    await sleep(warmupS * 1000);
    const atStop = total();
    const stopped = Date.now();
    let peak = 0;
    const watch = setInterval(() => void health(url).then((h) => (peak = Math.max(peak, h.buffered))), 250);
    await database.restart(outageS * 1000);
    const returned = Date.now();
    const whileDown = total() - atStop;
    let caughtUpS = Number.NaN;
    for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
      const h = await health(url);
      if (h.status === 200 && h.buffered === 0) {
        caughtUpS = (Date.now() - returned) / 1000;
        break;
      }
      await sleep(100);
    }
    clearInterval(watch);
    running = false;
    await producers;
    // Delivery: every message once, in order per partition.
    let bad = 0;
    for (const partition of partitions) {
      const got: string[] = [];
      for (let idle = 0; got.length < pushed.get(partition)! && idle < 50;) {
        const res = await fetch(`${url}${pathOf(routes.popPartition, { queue, partition }, { batch: 1000, autoAck: true, wait: false })}`);
        if (res.status !== 200) { await res.text(); idle++; await sleep(100); continue; }
        got.push(...((await res.json()) as { messages: Array<{ transactionId: string }> }).messages.map((m) => m.transactionId));
      }
      const expected = Array.from({ length: pushed.get(partition)! }, (_, i) => `${partition}-${i + 1}`);
      if (got.join() !== expected.join()) bad++;
    }
    const result = {
      scenario: 'chaos-outage', rate, outageS, pushed: total(), pushedWhileDown: whileDown, outageWallS: (returned - stopped) / 1000,
      peakBuffered: peak, caughtUpS, pushFailures: failures, partitionsWrong: bad, targetMet: caughtUpS <= 10,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    log(`chaos-outage: ${whileDown} messages pushed while PostgreSQL was down (${result.outageWallS.toFixed(1)} s); peak ${peak} buffered; `
      + `buffer empty ${caughtUpS.toFixed(1)} s after its return; ${bad} partitions wrong; ${failures} failed pushes`);
    return bad === 0 && failures === 0 && result.targetMet ? 0 : 1;
  } finally {
    await slot?.stop().catch(() => undefined);
    await database?.stop().catch(() => undefined);
    fs.rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
  }
}
