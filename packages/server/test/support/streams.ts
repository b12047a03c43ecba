/**
 * Fixtures of the streams suites: the official Queen JS client (its `Stream`, from `../shared/compat`, or the
 * directory `QUEEN_COMPAT_DIR` names), a silent logger for it, sink draining the way the official test harness
 * does (fresh groups, batch=1 pops, ack/batch with a top-level consumerGroup), and polling helpers.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Client } from './harness.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Where the official JS client lives: `$QUEEN_COMPAT_DIR/queen-mq-js`, else `<repo>/../shared/compat/queen-mq-js`. */
export function officialClientDir(): string {
  const base = process.env.QUEEN_COMPAT_DIR ?? path.resolve(REPO_ROOT, '../shared/compat');
  const dir = path.join(base, 'queen-mq-js', 'client-v2');
  if (!fs.existsSync(path.join(dir, 'index.js'))) throw new Error(`the official Queen JS client is not at ${dir} (set QUEEN_COMPAT_DIR)`);
  return dir;
}

/** The official client's entry point as an import URL (for child processes too). */
export function officialClientUrl(): string {
  return pathToFileURL(path.join(officialClientDir(), 'index.js')).href;
}

/** The few shapes of the official (untyped JS) client these tests use. */
export interface OfficialQueueBuilder {
  readonly name: string;
  config(options: Record<string, unknown>): OfficialQueueBuilder;
  create(): Promise<unknown>;
  partition(name: string): OfficialQueueBuilder;
  push(items: Array<{ data: unknown; transactionId?: string }>): Promise<unknown>;
}

/** The official `Queen` client. */
export interface OfficialQueen {
  queue(name: string): OfficialQueueBuilder;
  close(): Promise<void>;
}

/** A running official stream. */
export interface OfficialHandle {
  stop(): Promise<void>;
  metrics(): Record<string, number | string | null>;
}

/** A user function of a chain: the official client passes untyped JS values. */
type Fn = (...args: any[]) => unknown;

/** The official `Stream` builder (every combinator returns a new Stream). */
export interface OfficialStream {
  map(fn: Fn): OfficialStream;
  filter(fn: Fn): OfficialStream;
  flatMap(fn: Fn): OfficialStream;
  keyBy(fn: Fn): OfficialStream;
  windowTumbling(options: Record<string, unknown>): OfficialStream;
  windowSliding(options: Record<string, unknown>): OfficialStream;
  windowSession(options: Record<string, unknown>): OfficialStream;
  windowCron(options: Record<string, unknown>): OfficialStream;
  reduce(fn: Fn, initial?: unknown): OfficialStream;
  aggregate(extractors: Record<string, Fn>): OfficialStream;
  gate(fn: Fn): OfficialStream;
  to(queue: OfficialQueueBuilder, options?: Record<string, unknown>): OfficialStream;
  foreach(fn: Fn): OfficialStream;
  run(options: Record<string, unknown>): Promise<OfficialHandle>;
}

/** The module `queen-mq` (client-v2/index.js). */
export interface OfficialModule {
  Queen: new (config: { url: string; bearerToken?: string } | { urls: string[] }) => OfficialQueen;
  Stream: { from(queue: OfficialQueueBuilder, options?: Record<string, unknown>): OfficialStream };
  tokenBucketGate(options: Record<string, unknown>): (value: unknown, ctx: unknown) => unknown;
}

/** Loads the official client. */
export async function loadOfficial(): Promise<OfficialModule> {
  // @ts-expect-error: a plain JS module without declarations (it only registers a resolution hook)
  await import('./official-client.mjs');
  return (await import(officialClientUrl())) as OfficialModule;
}

/** A logger that keeps the official runner quiet and collects its errors. */
export function quietLogger(): { info(): void; warn(): void; error(...args: unknown[]): void; errors: unknown[][] } {
  const errors: unknown[][] = [];
  return { info() {}, warn() {}, error: (...args: unknown[]) => void errors.push(args), errors };
}

/** Polls `check` every 50 ms until it returns a value other than undefined/false, or fails after `ms`. */
export async function eventually<T>(what: string, ms: number, check: () => Promise<T | undefined | false> | T | undefined | false): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One message drained from a sink. */
export interface Drained {
  data: any;
  partition: string;
  transactionId: string;
}

/**
 * Everything currently in a queue, read by a fresh consumer group (one message per pop, acked through
 * ack/batch with a top-level consumerGroup, as the official harness drains sinks).
 */
export async function drainQueue(api: Client, queue: string): Promise<Drained[]> {
  const group = `drain-${randomUUID().slice(0, 8)}`;
  const out: Drained[] = [];
  for (;;) {
    const res = await api.get(`/api/v1/pop/queue/${encodeURIComponent(queue)}?batch=1000&consumerGroup=${group}&wait=false`);
    if (res.status === 204) return out;
    assert.equal(res.status, 200, res.text);
    const messages = res.json.messages as Array<{ data: unknown; partition: string; transactionId: string; partitionId: string; leaseId: string }>;
    for (const m of messages) out.push({ data: m.data, partition: m.partition, transactionId: m.transactionId });
    const acked = await api.post('/api/v1/ack/batch', {
      consumerGroup: group,
      acknowledgments: messages.map((m) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, status: 'completed' })),
    });
    assert.equal(acked.status, 200, acked.text);
  }
}

/** Waits until a queue holds at least `count` messages for a fresh reader, then returns them all. */
export async function drainAtLeast(api: Client, queue: string, count: number, ms: number): Promise<Drained[]> {
  let last: Drained[] = [];
  return eventually(`${count} messages in ${queue} (have ${last.length})`, ms, async () => {
    last = await drainQueue(api, queue);
    return last.length >= count ? last : undefined;
  });
}
