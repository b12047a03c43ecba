/**
 * `node bench/dist/cpu-ab.js OTHER_REPO [BLOCKS] [SCALE]`: the broker CPU per request of two builds, measured side by side in blocks that
 * alternate between them, so both see the same machine at (nearly) the same time.
 *
 * Design: on a shared machine the throughput of one run against the next moves by 2-4x (other work), so an
 * old/new ratio of throughput runs says little. Here both brokers run at once (this repository's and
 * OTHER_REPO's packages/server/dist/main.js, each on its own embedded PostgreSQL), and every block sends
 * the same fixed work to one and then to the other (the order swapped every block): push-b1 and push-b100
 * requests at fixed concurrency, pops of 100 (autoAck, no partition cap) that drain what the block pushed,
 * pops of one partition each (batch 100, no autoAck), then one /ack/batch per popped batch. The figure is the broker's utime+stime (/proc) over each phase divided by its
 * requests; the median over the blocks is printed per phase, with new/old. Wall time is printed too but
 * is the machine's, not the broker's.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBroker, type BrokerHandle } from './broker-process.js';
import { QueenClient, type AckItem, type PushRequestItem } from './http.js';
import { processCpuUs } from './resources.js';
import { median } from './stats.js';

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Side {
  label: string;
  broker: BrokerHandle;
  client: QueenClient;
  queue: string;
}

type Phase = 'push-b1' | 'push-b100' | 'pop-b100' | 'pop-1-partition' | 'ack-batch';

async function inParallel(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await work(next++);
  }));
}

function items(queue: string, block: number, tag: string, count: number, offset: number): PushRequestItem[] {
  return Array.from({ length: count }, (_, i) => ({
    queue, partition: `p${(offset + i) % 100}`, payload: { seq: offset + i, ts: Date.now() },
    transactionId: `${tag}.${block}.${offset + i}`,
  }));
}

/** One block on one side: each phase's CPU µs per request. */
async function block(side: Side, n: number, scale: number): Promise<Record<Phase, number>> {
  const { client, queue, broker } = side;
  const out = {} as Record<Phase, number>;
  const measure = async (phase: Phase, requests: number, run: () => Promise<void>): Promise<void> => {
    const before = processCpuUs(broker.pid);
    await run();
    out[phase] = (processCpuUs(broker.pid) - before) / requests;
  };
  await measure('push-b1', 1000 * scale, () => inParallel(1000 * scale, 20, async (i) => void (await client.push(items(queue, n, 'a', 1, i)))));
  await measure('push-b100', 100 * scale, () => inParallel(100 * scale, 10, async (i) => void (await client.push(items(queue, n, 'b', 100, i * 100)))));
  // 1 000 + 10 000 messages are waiting: drain them with autoAck pops of 100.
  let pops = 0;
  await measure('pop-b100', 1, async () => {
    for (;;) {
      const answers = await Promise.all(Array.from({ length: 10 }, () =>
        client.pop(queue, { batch: 100, wait: false, timeoutMs: 0, autoAck: true, partitions: 0 })));
      pops += answers.length;
      if (answers.every((a) => a.messages.length === 0)) break;
    }
  });
  out['pop-b100'] *= 1 / pops;
  // 5 000 more, popped one partition a call without autoAck (up to 50 messages each), then every batch
  // acknowledged with one /ack/batch: pops and acks measured apart.
  await inParallel(50 * scale, 10, async (i) => void (await client.push(items(queue, n, 'c', 100, i * 100))));
  const batches: AckItem[][] = [];
  let onePartitionPops = 0;
  await measure('pop-1-partition', 1, async () => {
    for (;;) {
      const answers = await Promise.all(Array.from({ length: 10 }, () =>
        client.pop(queue, { batch: 100, wait: false, timeoutMs: 0, autoAck: false, partitions: 1 })));
      onePartitionPops += answers.length;
      for (const answer of answers) {
        if (answer.messages.length > 0) {
          batches.push(answer.messages.map((m) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, status: 'completed' })));
        }
      }
      if (answers.every((a) => a.messages.length === 0)) break;
    }
  });
  out['pop-1-partition'] *= 1 / onePartitionPops;
  await measure('ack-batch', Math.max(1, batches.length), () => inParallel(batches.length, 10, async (i) => void (await client.ack(batches[i]!))));
  return out;
}

async function main(): Promise<number> {
  const other = process.argv[2];
  const blocks = Number(process.argv[3] ?? 8);
  /** Work per block: CPU time is counted in 10 ms ticks, so a phase needs hundreds of ms to be resolved. */
  const scale = Number(process.argv[4] ?? 3);
  if (other === undefined) {
    process.stderr.write('usage: node bench/dist/cpu-ab.js OTHER_REPO [BLOCKS] [SCALE]  (OTHER_REPO: a built checkout of the old build)\n');
    return 2;
  }
  const log = (line: string): void => void process.stderr.write(`# ${line}\n`);
  const sides: Side[] = [];
  try {
    for (const [label, root] of [['old', path.resolve(other)], ['new', HERE]] as const) {
      const broker = await startBroker(root, log, { label: `${label} broker` });
      const client = new QueenClient(broker.url, 32);
      const queue = `cpu-ab-${label}-${Date.now()}`;
      await client.configure(queue, {});
      sides.push({ label, broker, client, queue });
    }
    for (const side of sides) await block(side, -1, 1); // warm-up: JIT, pools, plans
    const results: Record<string, Record<Phase, number>[]> = { old: [], new: [] };
    for (let n = 0; n < blocks; n++) {
      const order = n % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) results[side.label]!.push(await block(side, n, scale));
      log(`block ${n + 1}/${blocks} done`);
    }
    const phases = Object.keys(results['old']![0]!) as Phase[];
    process.stdout.write('| phase | old µs CPU/request (median) | new | new/old | old per block | new per block |\n|---|---:|---:|---:|---|---|\n');
    for (const phase of phases) {
      const o = results['old']!.map((r) => r[phase]);
      const w = results['new']!.map((r) => r[phase]);
      process.stdout.write(`| ${phase} | ${median(o).toFixed(0)} | ${median(w).toFixed(0)} | ${(median(w) / median(o)).toFixed(2)} | ` +
        `${o.map((v) => v.toFixed(0)).join(' ')} | ${w.map((v) => v.toFixed(0)).join(' ')} |\n`);
    }
    return 0;
  } finally {
    for (const side of sides.reverse()) {
      await side.client.close();
      await side.broker.stop();
    }
  }
}

process.exitCode = await main();
