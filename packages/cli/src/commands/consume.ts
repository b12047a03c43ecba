/**
 * Reading and settling messages (docs/cli.md): `pop`, `ack` and `tail`. Both `pop` and `tail` print one
 * NDJSON line per message whatever `-o` says, so their output pipes into `ack --batch -`. `tail --auto-ack` acks
 * what it printed after printing it; Ctrl-C stops new pops, lets the acks of printed messages finish and exits 0.
 */
import type { Command } from 'commander';
import type { AckStatus } from '@queen/client';
import * as broker from '@queen/client/api';
import type { Api, CallOptions } from '../api.js';
import { action, int, positive, bool, sub } from '../command.js';
import { CliError, EXIT, noop, serverError, userError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { millisIso, parseDuration, parseTime, rfc3339 } from '../time.js';

/** A message of a pop answer (docs/api.md §5.12), with the `queue` and `retryCount` an upstream broker may add. */
type WireMessage = broker.PoppedMessage & { queue?: string; retryCount?: number };

/** The NDJSON line of one message: `{queue, partition, transactionId, partitionId, createdAt, data, ...}`. */
export function messageLine(msg: WireMessage, queue: string): Record<string, unknown> {
  return {
    queue: msg.queue || queue,
    partition: msg.partition,
    transactionId: msg.transactionId,
    partitionId: msg.partitionId,
    // One time format across commands (docs/cli.md): the pop answer's microseconds cut to tail's milliseconds.
    createdAt: millisIso(msg.createdAt),
    ...(typeof msg.retryCount === 'number' ? { retryCount: msg.retryCount } : {}),
    data: msg.data,
    ...(msg.leaseId ? { leaseId: msg.leaseId } : {}),
    ...(msg.consumerGroup ? { consumerGroup: msg.consumerGroup } : {}),
    ...(msg.traceId ? { traceId: msg.traceId } : {}),
    ...(msg.producerSub ? { producerSub: msg.producerSub } : {}),
    ...(msg.traceparent ? { traceparent: msg.traceparent } : {}),
    ...(msg.tracestate ? { tracestate: msg.tracestate } : {}),
  };
}

/** `--since`: `now` verbatim, anything else parsed with docs/cli.md and sent as RFC 3339. */
function subscriptionFrom(since: string | undefined): string | undefined {
  if (since === undefined) return undefined;
  return since.trim().toLowerCase() === 'now' ? 'now' : rfc3339(parseTime(since, '--since'));
}

/** Which pop route a run uses: one partition, a whole queue, or discovery by namespace/task. */
interface PopTarget {
  queue: string | undefined;
  partition: string | undefined;
}

function popTarget(queue: string | undefined, partition: string | undefined, opts: { namespace?: string; task?: string }): PopTarget {
  if (!queue && !opts.namespace && !opts.task) throw userError('pop needs a queue, or --namespace and/or --task for a discovery pop');
  return { queue: queue || undefined, partition: queue ? partition : undefined };
}

/** One pop: the messages (empty on 204 or a long-poll timeout) and the answer's queue name. */
async function popOnce(api: Api, target: PopTarget, params: broker.PopQuery, waitMillis: number, signal?: AbortSignal | null): Promise<{ messages: WireMessage[]; queue: string }> {
  const options: CallOptions = { longPoll: true, timeoutMillis: waitMillis + 5000, allowFailure: true, ...(signal !== undefined ? { signal } : {}) };
  const http = api.http(options);
  const body = target.queue === undefined
    ? await broker.popDiscovery(http, params as broker.PopQuery & { namespace: string })
    : target.partition
      ? await broker.popPartition(http, target.queue, target.partition, params)
      : await broker.popQueue(http, target.queue, params);
  return { messages: body?.messages ?? [], queue: body?.queue ?? '' };
}

/** Acks messages `completed` (or `failed`) for a group in one request; resolves with the refused ones. */
async function ackMessages(api: Api, messages: Array<{ transactionId: string; partitionId: string; leaseId?: string; consumerGroup?: string }>, group: string | undefined, status: AckStatus = 'completed', error?: string): Promise<Array<{ transactionId: string; error: string }>> {
  const acknowledgments = messages.map((m) => ({ transactionId: m.transactionId, partitionId: m.partitionId, status, ...(m.leaseId ? { leaseId: m.leaseId } : {}), ...(m.consumerGroup ? { consumerGroup: m.consumerGroup } : {}), ...(error ? { error } : {}) }));
  const body = await broker.ackBatch(api.http({ signal: null, allowFailure: true }), { acknowledgments, ...(group ? { consumerGroup: group } : {}) });
  return body.filter((r) => !r.success).map((r) => ({ transactionId: r.transactionId, error: r.error ?? 'refused' }));
}

function isTransient(error: unknown): boolean {
  return error instanceof CliError && error.exitCode === EXIT.server;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** How often `tail -f` looks for new messages in peek mode. */
const PEEK_INTERVAL_MILLIS = 500;
/** The most messages one look asks for (the listing's maximum). */
const PEEK_PAGE = 1000;
/** Options only the consuming tail reads. */
const CONSUME_ONLY: Array<[string, string]> = [['cg', '--cg'], ['autoAck', '--auto-ack'], ['batch', '--batch'], ['maxPartitions', '--max-partitions'], ['from', '--from'], ['since', '--since'], ['concurrency', '--concurrency'], ['timeout', '--timeout']];

/**
 * `tail` without `--consume`: reads the queue like `kcat -C -o -N`, claiming nothing. Prints the newest `-n`
 * messages (default 10) oldest first, then with `-f` every message pushed after them, from the message listing
 * and each message's detail (for its payload); no consumer group, no lease, nothing shown as processing.
 */
async function peekTail(rt: Runtime, queue: string, opts: Record<string, any>): Promise<void> { // eslint-disable-line @typescript-eslint/no-explicit-any -- commander options
  const given = CONSUME_ONLY.filter(([key]) => opts[key] !== undefined).map(([, flag]) => flag);
  if (given.length > 0) throw userError(`${given.join(', ')} ${given.length === 1 ? 'needs' : 'need'} --consume (tail only reads without it)`);
  const api = await rt.api();
  const first: number = opts.limit ?? 10;
  const idle: number = opts.idleMillis;
  const base: broker.MessageListQuery = { queue, partition: opts.partition };
  const printed = new Map<string, number>(); // id -> createdAt (ms), pruned below the cursor
  let cursor = 0; // createdAt (ms) of the newest message printed
  let lastMessageAt = Date.now();
  const show = async (rows: broker.MessageListRow[]): Promise<void> => {
    for (const row of rows) {
      if (rt.signal.aborted) return;
      const detail = await broker.getMessage(api.http(), row.partitionId, row.transactionId).catch(() => null);
      if (detail === null || 'error' in detail) continue; // deleted or evicted meanwhile
      process.stdout.write(`${JSON.stringify({ queue: row.queue, partition: row.partition, transactionId: row.transactionId, partitionId: row.partitionId, createdAt: row.createdAt, status: detail.status ?? row.status, data: detail.payload, ...(row.traceId ? { traceId: row.traceId } : {}) })}\n`);
      const at = Date.parse(row.createdAt);
      printed.set(row.id, at);
      cursor = Math.max(cursor, at);
    }
  };
  // One look at the newest page: print its newest `first`, and count the rest as seen, so the follow starts
  // after all of them (messages of one push share a millisecond; the broker's clock, not this machine's).
  const newest = await broker.listMessages(api.http(), { ...base, from: new Date(0).toISOString(), limit: PEEK_PAGE });
  await show(newest.messages.slice(0, Math.min(first, PEEK_PAGE)).reverse());
  for (const row of newest.messages) {
    const at = Date.parse(row.createdAt);
    printed.set(row.id, at);
    cursor = Math.max(cursor, at);
  }
  if (!opts.follow) return;
  while (!rt.signal.aborted) {
    if (idle > 0 && Date.now() - lastMessageAt >= idle) return;
    await sleep(PEEK_INTERVAL_MILLIS, rt.signal);
    if (rt.signal.aborted) return;
    // From just before the newest printed message (same-millisecond neighbours), newest first: print the unseen.
    const body = await broker.listMessages(api.http(), { ...base, from: new Date(Math.max(cursor - 1, 0)).toISOString(), limit: PEEK_PAGE });
    const fresh = body.messages.filter((m) => !printed.has(m.id)).reverse();
    if (fresh.length === 0) continue;
    await show(fresh);
    lastMessageAt = Date.now();
    for (const [id, at] of printed) if (at < cursor - 1) printed.delete(id);
  }
}

/** `tail --consume`: pops as a consumer group (default `queenctl-tail`), acking with `--auto-ack`. */
async function consumeTail(rt: Runtime, queue: string, opts: Record<string, any>): Promise<void> { // eslint-disable-line @typescript-eslint/no-explicit-any -- commander options
  const api = await rt.api();
  opts = { cg: 'queenctl-tail', limit: 0, batch: 1, maxPartitions: 1, concurrency: 1, timeout: '30s', ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) };
  await warnIfMissing(rt, api, queue);
  const group: string = opts.cg;
  const oneShot = !opts.follow && opts.limit === 0;
  const max = opts.limit > 0 ? opts.limit : oneShot ? (opts.batch > 1 ? opts.batch : 100) : Infinity;
  const timeout = parseDuration(opts.timeout, '--timeout');
  const idle: number = opts.idleMillis;
  const target = popTarget(queue, opts.partition, {});
  const base: broker.PopQuery = { wait: true, consumerGroup: group, subscriptionMode: opts.from, subscriptionFrom: subscriptionFrom(opts.since), partitions: opts.maxPartitions > 1 ? opts.maxPartitions : undefined };
  const state = { emitted: 0, reserved: 0, lastMessageAt: Date.now(), warned: false, stop: false };
  const stdoutError = (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') state.stop = true;
  };
  process.stdout.on('error', stdoutError);
  const loop = async (): Promise<void> => {
    while (!rt.signal.aborted && !state.stop) {
      const want = Math.min(opts.batch as number, max - state.emitted - state.reserved);
      if (want <= 0) return;
      let waitMillis = timeout;
      if (idle > 0) {
        const left = idle - (Date.now() - state.lastMessageAt);
        if (left <= 0) return;
        waitMillis = Math.min(waitMillis, left);
      }
      state.reserved += want;
      let messages: WireMessage[];
      let answerQueue: string;
      try {
        ({ messages, queue: answerQueue } = await popOnce(api, target, { ...base, batch: want, timeout: waitMillis }, waitMillis));
      } catch (error) {
        if (rt.signal.aborted) return;
        if (!isTransient(error)) throw error;
        if (!state.warned) rt.out.warn(`${(error as Error).message}; retrying`);
        state.warned = true;
        await sleep(1000, rt.signal);
        continue;
      } finally {
        state.reserved -= want;
      }
      state.warned = false;
      if (messages.length === 0) {
        if (oneShot) state.stop = true;
        continue;
      }
      for (const m of messages) process.stdout.write(`${JSON.stringify(messageLine(m, answerQueue || queue))}\n`);
      state.emitted += messages.length;
      state.lastMessageAt = Date.now();
      if (opts.autoAck) {
        const refused = await ackMessages(api, messages, group);
        for (const r of refused) rt.out.warn(`ack of ${r.transactionId} refused: ${r.error}`);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.concurrency as number }, loop));
  } catch (error) {
    if (error instanceof CliError) throw new CliError(`tail: ${error.message}`, error.exitCode);
    throw error;
  } finally {
    process.stdout.off('error', stdoutError);
  }
}

/** Edit distance of two names (the closest existing queue to a typo). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Before a queue-scoped pop, which creates a missing queue by design (docs/api.md 5): says on stderr that the queue
 * does not exist, before any long poll, with the closest existing name when one is near. A failed check stays
 * silent (the pop itself reports what is wrong).
 */
async function warnIfMissing(rt: Runtime, api: Api, queue: string): Promise<void> {
  const found = await broker.getQueue(api.http({ allowMissing: true }), queue).catch(() => null);
  if (found === null || !('error' in found)) return;
  const listed = await broker.listQueues(api.http(), { limit: 1000 }).catch(() => null);
  const names = (listed?.queues ?? []).map((q) => q.name);
  const scored = names.map((name) => ({ name, distance: editDistance(queue.toLowerCase(), name.toLowerCase()) })).sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name));
  const best = scored[0];
  const near = best !== undefined && best.distance <= Math.max(2, Math.floor(queue.length / 3));
  rt.out.warn(`queue "${queue}" does not exist; the broker creates it on this pop${near ? ` (did you mean "${best.name}"?)` : ''}`);
}

/** Registers `pop`, `ack` and `tail`. */
export function registerConsume(program: Command): void {
  action(sub(program, 'pop [queue]', 'Pop messages once and print them as NDJSON (without a queue: a discovery pop by --namespace/--task)', ['queenctl pop orders --cg billing -n 10', 'queenctl pop --namespace shop --auto-ack'])
    .option('--cg <group>', 'consumer group (default: queue mode)')
    .option('--partition <name>', 'only this partition')
    .option('-n, --limit <n>', 'messages to pop (default: --batch, else 1)', positive)
    .option('--batch <n>', 'messages per request (default: --limit); alone, the messages to pop', positive)
    .option('--max-partitions <n>', 'partitions one pop may claim', positive, 1)
    .option('--auto-ack', 'the broker acks on delivery (at-most-once)')
    .option('--wait [bool]', 'long-poll until messages arrive or --timeout', bool, true)
    .option('--no-wait', 'answer at once')
    .option('--timeout <duration>', 'long-poll timeout', '10s')
    .option('--namespace <ns>', 'discovery pop: queues of this namespace')
    .option('--task <task>', 'discovery pop: queues of this task')
    .option('--from-mode <mode>', 'where a new group starts: all, new, new-only')
    .option('--since <time>', 'where a new group starts: a time (now, 15m ago, RFC 3339)'), async (rt, opts, queue) => {
    const api = await rt.api();
    const target = popTarget(queue, opts.partition, opts);
    const timeout = parseDuration(opts.timeout, '--timeout');
    const limit: number = opts.limit ?? opts.batch ?? 1;
    const batch: number = opts.batch ?? limit;
    if (queue) await warnIfMissing(rt, api, queue);
    const params: broker.PopQuery = { wait: opts.wait, timeout, consumerGroup: opts.cg, autoAck: opts.autoAck ? true : undefined, subscriptionMode: opts.fromMode, subscriptionFrom: subscriptionFrom(opts.since), partitions: opts.maxPartitions > 1 ? opts.maxPartitions : undefined, namespace: queue ? undefined : opts.namespace, task: queue ? undefined : opts.task };
    let emitted = 0;
    while (emitted < limit) {
      const { messages, queue: answerQueue } = await popOnce(api, target, { ...params, batch: Math.min(batch, limit - emitted) }, opts.wait ? timeout : 0);
      if (messages.length === 0) break;
      for (const m of messages) process.stdout.write(`${JSON.stringify(messageLine(m, answerQueue || queue || ''))}\n`);
      emitted += messages.length;
    }
    if (emitted === 0) throw noop();
  });

  action(sub(program, 'ack [transactionId]', 'Ack one message, or (--batch) every NDJSON line of pop/tail output', ['queenctl ack 0198f2e0-51c4-7e22-a1b0-3c4d5e6f7081 --partition-id 0198f2c0-0000-7000-8000-00000000b002 --cg billing', 'queenctl tail orders --consume --cg billing -n 10 | queenctl ack --batch - --cg billing'])
    .option('--partition-id <id>', 'partition id of the message (required for one message)')
    .option('--lease-id <id>', 'lease id from the pop')
    .option('--cg <group>', 'consumer group (default: queue mode, or each line\'s consumerGroup)')
    .option('--failed', 'ack as failed (retry, then DLQ)')
    .option('--error <text>', 'error text stored with a failed ack')
    .option('--batch <file>', 'NDJSON file of messages (- = stdin)'), async (rt, opts, transactionId) => {
    const api = await rt.api();
    const status = opts.failed ? 'failed' : 'completed';
    if (opts.batch !== undefined) {
      if (transactionId) throw userError('give either a transactionId or --batch, not both');
      const text = await rt.readInput(opts.batch);
      const items = text.split('\n').map((l, i) => [l.trim(), i + 1] as const).filter(([l]) => l !== '').map(([l, n]) => {
        let v: Record<string, unknown>;
        try {
          v = JSON.parse(l) as Record<string, unknown>;
        } catch {
          throw userError(`--batch line ${n}: not valid JSON`);
        }
        if (typeof v.transactionId !== 'string' || typeof v.partitionId !== 'string') throw userError(`--batch line ${n}: needs transactionId and partitionId`);
        return { transactionId: v.transactionId, partitionId: v.partitionId, ...(typeof v.leaseId === 'string' ? { leaseId: v.leaseId } : {}), ...(typeof v.consumerGroup === 'string' ? { consumerGroup: v.consumerGroup } : {}) };
      });
      if (items.length === 0) throw noop();
      const refused = await ackMessages(api, items, opts.cg, status, opts.error);
      for (const r of refused) process.stderr.write(`queenctl: ack of ${r.transactionId} refused: ${r.error}\n`);
      rt.out.done(`ok=${items.length - refused.length} failed=${refused.length}`);
      if (refused.length > 0) throw new CliError('', EXIT.server, true);
      return;
    }
    if (!transactionId) throw noop();
    if (!opts.partitionId) throw userError('--partition-id is required to ack one message');
    const body = await broker.ackMessage(api.http({ allowFailure: true }), { transactionId, partitionId: opts.partitionId, status, ...(opts.leaseId ? { leaseId: opts.leaseId } : {}), ...(opts.error ? { error: opts.error } : {}), ...(opts.cg ? { consumerGroup: opts.cg } : {}) });
    const result = Array.isArray(body) ? body[0] : undefined;
    if (!result?.success) throw serverError(`ack failed: ${result?.error ?? 'no result'}`);
    await rt.out.result('ack ok', body);
  });

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
