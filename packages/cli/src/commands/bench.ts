/**
 * `bench` (docs/cli.md): producers push `--total` messages in batches to partitions `p0..pK-1` while consumers
 * drain them with auto-acking pops in the group `queenctl-bench`. A live line on a TTY stderr shows rates, the
 * push p99 and errors; the summary gives throughput of both sides and the residency (pop time minus the
 * payload's `ts`) percentiles.
 */
import type { Command } from 'commander';
import * as broker from '@queen/client/api';
import { action, positive, int, bool, sub } from '../command.js';
import { CliError, EXIT } from '../errors.js';
import type { Runtime } from '../runtime.js';

/** The p-th percentile (0..100) of sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const ms = (v: number) => `${v < 10 ? v.toFixed(2) : Math.round(v)}ms`;
const rate = (n: number, millis: number) => Math.round(n / Math.max(millis / 1000, 0.001));
const dur = (millis: number) => (millis < 1000 ? `${Math.round(millis)}ms` : `${(millis / 1000).toFixed(2)}s`);

async function bench(rt: Runtime, opts: Record<string, any>): Promise<void> { // eslint-disable-line @typescript-eslint/no-explicit-any -- commander options
  const api = await rt.api();
  const queue: string = opts.queue;
  const total: number = opts.total;
  const K: number = opts.partitions;
  const filler = 'x'.repeat(opts.payloadSize);
  if (opts.autoCreate) await broker.configure(api.http(), { queue, options: { leaseTime: 30 } });
  const pushLatency: number[] = [];
  const residency: number[] = [];
  const seen = new Set<string>();
  const stats = { pushed: 0, pushErrors: 0, popErrors: 0, pushDone: 0, popDone: 0 };
  const started = performance.now();
  const live = Boolean(process.stderr.isTTY) && !rt.out.quiet;
  const ticker = live
    ? setInterval(() => {
        const t = performance.now() - started;
        const p99 = percentile([...pushLatency].sort((a, b) => a - b), 99);
        process.stderr.write(`\rpush ${stats.pushed.toLocaleString('en-US')}/${total.toLocaleString('en-US')} (${rate(stats.pushed, t).toLocaleString('en-US')} msg/s)  pop ${seen.size.toLocaleString('en-US')} (${rate(seen.size, t).toLocaleString('en-US')} msg/s)  push p99 ${ms(p99)}  errors ${stats.pushErrors + stats.popErrors}\u001b[K`);
      }, 250)
    : undefined;

  const producer = async (p: number) => {
    const share = Math.floor(total / opts.producers) + (p < total % opts.producers ? 1 : 0);
    for (let i = 0, b = 0; i < share && !rt.signal.aborted; b++) {
      const n = Math.min(opts.batch, share - i);
      const partition = `p${(p + b) % K}`;
      const items = Array.from({ length: n }, (_x, j) => ({ queue, partition, payload: { producer: p, i: i + j, ts: (BigInt(Date.now()) * 1_000_000n).toString(), data: filler } }));
      const t0 = performance.now();
      try {
        const results = await broker.push(api.http(), { items });
        stats.pushed += results.filter((r) => r.status === 'queued' || r.status === 'buffered' || r.status === 'duplicate').length;
        stats.pushErrors += results.filter((r) => r.status === 'failed').length;
      } catch (error) {
        if (rt.signal.aborted) return;
        stats.pushErrors += n;
        rt.out.warn(`push: ${(error as Error).message}`);
      }
      pushLatency.push(performance.now() - t0);
      i += n;
    }
  };
  // Once everything is drained, the other consumers' long polls are cut short (they would only time out).
  const drained = new AbortController();
  const popSignal = AbortSignal.any([rt.signal, drained.signal]);
  const consumer = async () => {
    let emptySince = Date.now();
    while (seen.size < total && !popSignal.aborted && Date.now() - emptySince < 5000) {
      try {
        const answer = await broker.popQueue<{ ts?: string }>(api.http({ longPoll: true, timeoutMillis: 7000, signal: popSignal, allowFailure: true }), queue, { consumerGroup: 'queenctl-bench', autoAck: true, batch: opts.batch, wait: true, timeout: 2000 });
        const messages = answer?.messages ?? [];
        const now = BigInt(Date.now()) * 1_000_000n;
        if (messages.length > 0) emptySince = Date.now();
        for (const m of messages) {
          const key = `${m.partitionId}/${m.transactionId}`;
          if (seen.has(key)) continue;
          seen.add(key);
          if (typeof m.data?.ts === 'string') residency.push(Number(now - BigInt(m.data.ts)) / 1e6);
        }
        if (seen.size >= total && !drained.signal.aborted) {
          stats.popDone = performance.now() - started;
          drained.abort();
        }
      } catch {
        if (popSignal.aborted) return;
        stats.popErrors++;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  const pushPhase = Promise.all(Array.from({ length: opts.producers }, (_x, p) => producer(p))).then(() => (stats.pushDone = performance.now() - started));
  const popPhase = opts.skipPop ? Promise.resolve() : Promise.all(Array.from({ length: opts.consumers }, consumer)).then(() => (stats.popDone ||= performance.now() - started));
  await Promise.all([pushPhase, popPhase]);
  if (ticker) {
    clearInterval(ticker);
    process.stderr.write('\r\u001b[K');
  }
  residency.sort((a, b) => a - b);
  pushLatency.sort((a, b) => a - b);
  const summary = {
    queue,
    push: { messages: stats.pushed, errors: stats.pushErrors, millis: Math.round(stats.pushDone), perSecond: rate(stats.pushed, stats.pushDone), p99Millis: percentile(pushLatency, 99) },
    pop: opts.skipPop ? null : { messages: seen.size, errors: stats.popErrors, millis: Math.round(stats.popDone), perSecond: rate(seen.size, stats.popDone) },
    residencyMillis: opts.skipPop ? null : { p50: percentile(residency, 50), p95: percentile(residency, 95), p99: percentile(residency, 99) },
  };
  if (opts.autoDelete) await broker.deleteQueue(api.http(), queue);
  if (rt.out.explicit) await rt.out.print(summary);
  else if (!rt.out.quiet) {
    rt.out.write(`PUSH ${stats.pushed} msgs in ${dur(stats.pushDone)} (${summary.push.perSecond.toLocaleString('en-US')} msg/s, request p99 ${ms(summary.push.p99Millis)})\n`);
    if (summary.pop) rt.out.write(`POP  ${seen.size} msgs in ${dur(stats.popDone)} (${summary.pop.perSecond.toLocaleString('en-US')} msg/s)\n`);
    if (summary.pop && seen.size < total) rt.out.write(`WARN expected ${total}, drained ${seen.size}\n`);
    if (summary.residencyMillis) rt.out.write(`RESIDENCY p50=${ms(summary.residencyMillis.p50)} p95=${ms(summary.residencyMillis.p95)} p99=${ms(summary.residencyMillis.p99)}\n`);
    if (!opts.autoDelete) rt.out.write(`cleanup: queenctl queue delete ${queue} --yes   (or run with --auto-delete)\n`);
  }
  if (stats.pushErrors > 0 || (summary.pop && seen.size < total)) throw new CliError('', EXIT.server, true);
}

/** Registers `bench`. */
export function registerBench(program: Command): void {
  action(sub(program, 'bench', 'Load test: push --total messages and drain them, with a live line and a summary', ['queenctl bench --total 20000 --producers 8', 'queenctl bench --total 1000 --auto-delete -o json'])
    .option('--queue <name>', 'queue to use', 'queenctl-bench')
    .option('--total <n>', 'messages', positive, 10000)
    .option('--batch <n>', 'push size and pop batch', positive, 100)
    .option('--partitions <n>', 'partitions p0..pK-1', positive, 4)
    .option('--producers <n>', 'parallel producers', positive, 4)
    .option('--consumers <n>', 'parallel consumers', positive, 4)
    .option('--payload-size <bytes>', 'filler bytes per message', int, 64)
    .option('--skip-pop', 'push only')
    .option('--auto-create [bool]', 'configure the queue (leaseTime 30) first', bool, true)
    .option('--no-auto-create', 'use the queue as it is')
    .option('--auto-delete', 'delete the queue at the end'), async (rt, opts) => bench(rt, opts));
}
