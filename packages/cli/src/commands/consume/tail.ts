/**
 * `tail` (docs/cli.md): peek without claiming anything, or (`--consume`) consume as a consumer group; Ctrl-C stops
 * new pops, lets the acks of printed messages finish and exits 0.
 */
import type { Command } from 'commander';
import type { SubscriptionMode } from '@queen/client';
import * as broker from '@queen/client/api';
import { action, int, positive, sub } from '../../command.js';
import { CliError, toCliError, userError } from '../../errors.js';
import type { Runtime } from '../../runtime.js';
import { parseDuration } from '../../time.js';
import { messageLine, subscriptionFrom } from './wire.js';
import { warnIfMissing } from './missing-queue.js';

/** Options only the consuming tail reads. */
const CONSUME_ONLY: Array<[string, string]> = [['cg', '--cg'], ['autoAck', '--auto-ack'], ['batch', '--batch'], ['maxPartitions', '--max-partitions'], ['from', '--from'], ['since', '--since'], ['concurrency', '--concurrency'], ['timeout', '--timeout']];

/**
 * `tail` without `--consume`: the SDK's peek (docs/client.md "Peek"), claiming nothing: the newest `-n` messages
 * (default 10) oldest first, then with `-f` every message pushed after them; no consumer group, no lease.
 */
async function peekTail(rt: Runtime, queue: string, opts: Record<string, any>): Promise<void> { // eslint-disable-line @typescript-eslint/no-explicit-any -- commander options
  const given = CONSUME_ONLY.filter(([key]) => opts[key] !== undefined).map(([, flag]) => flag);
  if (given.length > 0) throw userError(`${given.join(', ')} ${given.length === 1 ? 'needs' : 'need'} --consume (tail only reads without it)`);
  const api = await rt.api();
  const builder = api.queen.queue(queue);
  if (opts.partition) builder.partition(opts.partition);
  try {
    for await (const { row, detail } of builder.peek({ last: opts.limit ?? 10, follow: opts.follow === true, idleMillis: opts.idleMillis, signal: rt.signal })) {
      process.stdout.write(`${JSON.stringify({ queue: row.queue, partition: row.partition, transactionId: row.transactionId, partitionId: row.partitionId, createdAt: row.createdAt, status: detail.status ?? row.status, data: detail.payload, ...(row.traceId ? { traceId: row.traceId } : {}) })}\n`);
    }
  } catch (error) {
    throw toCliError(error, { method: broker.routes.listMessages.method, path: broker.routes.listMessages.path });
  }
}

/**
 * `tail --consume`: the SDK's consume loop as a consumer group (default `queenctl-tail`), printing each message
 * and, with `--auto-ack`, acking it after printing. Without `--follow` and `-n` it stops on the first empty
 * long poll (an idle time of one `--timeout`). Ctrl-C or a closed stdout stops the pops; acks of printed
 * messages finish.
 */
async function consumeTail(rt: Runtime, queue: string, opts: Record<string, any>): Promise<void> { // eslint-disable-line @typescript-eslint/no-explicit-any -- commander options
  const api = await rt.api();
  opts = { cg: 'queenctl-tail', limit: 0, batch: 1, maxPartitions: 1, concurrency: 1, timeout: '30s', ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) };
  await warnIfMissing(rt, api, queue);
  const oneShot = !opts.follow && opts.limit === 0;
  const timeout = parseDuration(opts.timeout, '--timeout');
  const idle: number = opts.idleMillis > 0 ? opts.idleMillis : oneShot ? timeout : 0;
  const limit: number = opts.limit > 0 ? opts.limit : oneShot ? (opts.batch > 1 ? opts.batch : 100) : 0;
  const builder = api.queen.queue(queue).group(opts.cg).batch(opts.batch).concurrency(opts.concurrency).timeoutMillis(timeout).autoAck(opts.autoAck === true);
  if (opts.partition) builder.partition(opts.partition);
  if (opts.maxPartitions > 1) builder.partitions(opts.maxPartitions);
  if (opts.from) builder.subscriptionMode(opts.from as SubscriptionMode);
  const since = subscriptionFrom(opts.since);
  if (since !== undefined) builder.subscriptionFrom(since);
  if (limit > 0) builder.limit(limit);
  if (idle > 0) builder.idleMillis(idle);
  const closed = new AbortController();
  const stdoutError = (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') closed.abort();
  };
  process.stdout.on('error', stdoutError);
  let warned: string | undefined;
  try {
    await builder.consume((messages) => {
      for (const m of messages) process.stdout.write(`${JSON.stringify(messageLine(m, queue))}\n`);
      warned = undefined;
    }, {
      signal: AbortSignal.any([rt.signal, closed.signal]),
      onPopRetry: (error) => {
        const text = toCliError(error).message;
        if (text !== warned) rt.out.warn(`${text}; retrying`);
        warned = text;
      },
      onAckRefused: (r) => rt.out.warn(`ack of ${r.transactionId} refused: ${r.error}`),
    });
  } catch (error) {
    const failure = toCliError(error, { method: 'GET', path: queue });
    throw new CliError(`tail: ${failure.message}`, failure.exitCode);
  } finally {
    process.stdout.off('error', stdoutError);
  }
}


/** Registers `tail`. */
export function registerTail(program: Command): void {
  action(sub(program, 'tail <queue>', 'Print the newest messages of a queue as NDJSON without consuming them (-f: and every new one); --consume reads as a consumer group', ['queenctl tail orders', 'queenctl tail orders -f -n 0', 'queenctl tail orders --consume --cg audit -f --auto-ack', 'queenctl tail orders --consume -n 5 --idle-millis 2000'])
    .option('--partition <name>', 'only this partition')
    .option('-f, --follow', 'keep waiting for new messages')
    .option('-n, --limit <n>', 'peek: how many of the newest messages to print first (default 10); --consume: stop after n (default 0 = no limit)', int)
    .option('--idle-millis <ms>', 'stop after this long without a message (0 = never)', int, 0)
    .option('--consume', 'consume as a consumer group (pops: the messages are leased to it, and acked with --auto-ack)')
    .option('--cg <group>', 'with --consume: consumer group (default queenctl-tail)')
    .option('--batch <n>', 'with --consume: messages per pop (default 1)', positive)
    .option('--max-partitions <n>', 'with --consume: partitions one pop may claim', positive)
    .option('--auto-ack', 'with --consume: ack each message after printing it')
    .option('--from <mode>', 'with --consume: where a new group starts: all, new, new-only')
    .option('--since <time>', 'with --consume: where a new group starts: a time (now, 15m ago, RFC 3339)')
    .option('--concurrency <n>', 'with --consume: pops in flight', positive)
    .option('--timeout <duration>', 'with --consume: per-pop long-poll wait (default 30s)'), async (rt, opts, queue) => (opts.consume ? consumeTail(rt, queue!, opts) : peekTail(rt, queue!, opts)));
}
