/**
 * `node bench/dist/cpu-ab.js OTHER_REPO [BLOCKS] [SCALE] [--profile DIR]`: the broker CPU per request of two builds,
 * measured side by side in blocks that alternate between them, so both see the same machine at (nearly) the same time.
 *
 * Design: on a shared machine the throughput of one run against the next moves by 2-4x (other work), so an
 * old/new ratio of throughput runs says little. Here both brokers run at once (this repository's and
 * OTHER_REPO's packages/server/dist/main.js, each on its own embedded PostgreSQL), and every block sends
 * the same fixed work to one and then to the other (the order swapped every block): push-b1 and push-b100
 * requests at fixed concurrency, pops of 100 (autoAck, no partition cap) that drain what the block pushed,
 * pops of one partition each (batch 100, no autoAck), then one /ack/batch per popped batch. The figure is the
 * broker's CPU time over each phase divided by its requests: the scheduler's nanosecond run time of its threads
 * (resources.ts `processRunUs`; /proc's utime+stime count 10 ms ticks, 9 % of a phase of a hundred ack batches).
 * The median over the blocks is printed per phase, with new/old, and the messages a pop and an ack batch carried.
 * `--profile DIR` runs both brokers under `node --cpu-prof` (DIR/old, DIR/new, each with the phases' windows in
 * windows.json) and prints, per phase and side, where the broker's CPU went over that phase's windows (profile.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBroker, type BrokerHandle } from './broker-process.js';
import { QueenClient, type AckItem, type PopMessage, type PopOptions, type PushRequestItem } from './http.js';
import { monotonicUs, readNewestProfile, renderProfileTable, summarizeProfile, type ProfileWindow } from './profile.js';
import { processRunUs } from './resources.js';
import { median } from './stats.js';

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Side {
  label: string;
  broker: BrokerHandle;
  client: QueenClient;
  queue: string;
  /** Per phase over all blocks: the measured windows, broker CPU (µs), requests and messages (for --profile). */
  spent: Record<string, { windows: ProfileWindow[]; cpuUs: number; requests: number; messages: number }>;
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
  /** Runs one phase; `run` answers its [requests, messages] (messages: 0 where a phase's unit is the request). */
  const measure = async (phase: Phase, run: () => Promise<[number, number]>): Promise<void> => {
    const before = processRunUs(broker.pid);
    const startUs = monotonicUs();
    const [requests, messages] = await run();
    const cpuUs = processRunUs(broker.pid) - before;
    out[phase] = cpuUs / Math.max(1, requests);
    const spent = (side.spent[phase] ??= { windows: [], cpuUs: 0, requests: 0, messages: 0 });
    spent.windows.push({ startUs, endUs: monotonicUs() });
    spent.cpuUs += cpuUs;
    spent.requests += requests;
    spent.messages += messages;
  };
  const pushes = async (count: number, concurrency: number, tag: string, size: number): Promise<[number, number]> => {
    await inParallel(count, concurrency, async (i) => void (await client.push(items(queue, n, tag, size, i * size))));
    return [count, count * size];
  };
  /** Pops 10 at a time until all 10 come back empty; answers [pops, messages]. */
  const drain = async (options: PopOptions, keep: (messages: PopMessage[]) => void): Promise<[number, number]> => {
    let pops = 0;
    let messages = 0;
    for (;;) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => client.pop(queue, options)));
      pops += answers.length;
      for (const answer of answers) {
        messages += answer.messages.length;
        if (answer.messages.length > 0) keep(answer.messages);
      }
      if (answers.every((a) => a.messages.length === 0)) return [pops, messages];
    }
  };
  await measure('push-b1', () => pushes(1000 * scale, 20, 'a', 1));
  await measure('push-b100', () => pushes(100 * scale, 10, 'b', 100));
  // 1 000 + 10 000 messages are waiting: drain them with autoAck pops of 100.
  await measure('pop-b100', () => drain({ batch: 100, wait: false, timeoutMs: 0, autoAck: true, partitions: 0 }, () => {}));
  // 5 000 more, popped one partition a call without autoAck (up to 50 messages each), then every batch
  // acknowledged with one /ack/batch: pops and acks measured apart.
  await pushes(50 * scale, 10, 'c', 100);
  const batches: AckItem[][] = [];
  await measure('pop-1-partition', () => drain({ batch: 100, wait: false, timeoutMs: 0, autoAck: false, partitions: 1 }, (messages) => {
    batches.push(messages.map((m) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, status: 'completed' })));
  }));
  await measure('ack-batch', async () => {
    await inParallel(batches.length, 10, async (i) => void (await client.ack(batches[i]!)));
    return [batches.length, batches.reduce((sum, b) => sum + b.length, 0)];
  });
  return out;
}

async function main(): Promise<number> {
  const other = process.argv[2];
  const profileAt = process.argv.indexOf('--profile');
  const profileDir = profileAt === -1 ? undefined : path.resolve(process.argv[profileAt + 1] ?? 'cpu-ab-profile');
  const positional = profileAt === -1 ? process.argv.slice(3) : [...process.argv.slice(3, profileAt), ...process.argv.slice(profileAt + 2)];
  const blocks = Number(positional[0] ?? 8);
  /** Work per block: a longer phase averages more of the machine's moments into each block's figure. */
  const scale = Number(positional[1] ?? 3);
  if (other === undefined) {
    process.stderr.write('usage: node bench/dist/cpu-ab.js OTHER_REPO [BLOCKS] [SCALE] [--profile DIR]  (OTHER_REPO: a built checkout of the old build)\n');
    return 2;
  }
  const log = (line: string): void => void process.stderr.write(`# ${line}\n`);
  const sides: Side[] = [];
  try {
    for (const [label, root] of [['old', path.resolve(other)], ['new', HERE]] as const) {
      // Sampled every 250 µs (V8's default is 1 ms): an ack phase is about a hundred ms of CPU a block.
      const dir = profileDir === undefined ? undefined : path.join(profileDir, label);
      if (dir !== undefined) fs.mkdirSync(dir, { recursive: true });
      const broker = await startBroker(root, log, { label: `${label} broker`, ...(dir === undefined ? {} : { nodeArgs: ['--cpu-prof', '--cpu-prof-interval', '250', '--cpu-prof-dir', dir] }) });
      const client = new QueenClient(broker.url, 32);
      const queue = `cpu-ab-${label}-${Date.now()}`;
      await client.configure(queue, {});
      sides.push({ label, broker, client, queue, spent: {} });
    }
    for (const side of sides) await block(side, -1, 1); // warm-up: JIT, pools, plans
    for (const side of sides) side.spent = {};
    const results: Record<string, Record<Phase, number>[]> = { old: [], new: [] };
    for (let n = 0; n < blocks; n++) {
      const order = n % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) results[side.label]!.push(await block(side, n, scale));
      log(`block ${n + 1}/${blocks} done`);
    }
    const phases = Object.keys(results['old']![0]!) as Phase[];
    // Paired: each block's new/old (both sides ran back to back, so the machine's load of the moment cancels).
    process.stdout.write('| phase | old µs CPU/request (median) | new | new/old | median of the blocks\' new/old | old per block | new per block |\n' +
      '|---|---:|---:|---:|---:|---|---|\n');
    for (const phase of phases) {
      const o = results['old']!.map((r) => r[phase]);
      const w = results['new']!.map((r) => r[phase]);
      const paired = median(w.map((v, i) => v / o[i]!));
      process.stdout.write(`| ${phase} | ${median(o).toFixed(0)} | ${median(w).toFixed(0)} | ${(median(w) / median(o)).toFixed(2)} | ${paired.toFixed(2)} | ` +
        `${o.map((v) => v.toFixed(0)).join(' ')} | ${w.map((v) => v.toFixed(0)).join(' ')} |\n`);
    }
    const perRequest = (phase: Phase, label: string): string => {
      const spent = sides.find((s) => s.label === label)?.spent[phase];
      return spent === undefined || spent.messages === 0 ? '' : (spent.messages / spent.requests).toFixed(1);
    };
    process.stdout.write(`\nmessages a request: pop-1-partition old ${perRequest('pop-1-partition', 'old')} new ${perRequest('pop-1-partition', 'new')}, ` +
      `ack-batch old ${perRequest('ack-batch', 'old')} new ${perRequest('ack-batch', 'new')}\n`);
    return 0;
  } finally {
    for (const side of [...sides].reverse()) {
      await side.client.close();
      await side.broker.stop();
    }
    if (profileDir !== undefined) printProfiles(profileDir, sides);
  }
}

/** --profile: each side's broker CPU per stage over each phase's windows (the profiles are written when the brokers exit). */
function printProfiles(dir: string, sides: readonly Side[]): void {
  for (const side of sides) {
    // The windows beside the profile, for a later look at the same samples.
    fs.writeFileSync(path.join(dir, side.label, 'windows.json'), JSON.stringify(side.spent));
    const profile = readNewestProfile(path.join(dir, side.label));
    if (profile === null) {
      process.stderr.write(`cpu-ab: no .cpuprofile in ${path.join(dir, side.label)}\n`);
      continue;
    }
    for (const [phase, spent] of Object.entries(side.spent)) {
      const summary = summarizeProfile(profile, spent.windows);
      process.stdout.write(`\n${renderProfileTable(`${side.label} ${phase}`, summary, spent.cpuUs, spent.requests, spent.messages || spent.requests)}\n`);
    }
  }
}

process.exitCode = await main();
