/**
 * `node bench/dist/validation-ab.js OTHER_REPO`: the CPU of the request checks alone, old build against this one,
 * on the bodies of cpu-ab's hot phases: a 100-item push (OTHER_REPO's `parsePushItems`, which type-checked and read
 * the items, against this build's edge check compiled from openapi.json plus `pushItems`) and a 100-item ack batch
 * (the old route's per-item checks, copied here as they were, against the edge check), and a pop's query (the old
 * `parseCommon`'s reads of OTHER_REPO's `Query`, copied here, against this build's query rules compiled from
 * openapi.json, http/query-rules.ts). One process, process CPU
 * time, median of five rounds: it isolates what cpu-ab's broker-wide figures cannot resolve (10 ms CPU ticks).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { messagingRoutes } from '@queen/client/api';
import { median } from './stats.js';

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
type Check = (body: unknown) => void;
/** This build's server modules, loaded like OTHER_REPO's (the bench does not link the server's code). */
interface NewBuild {
  validation: {
    documentValidators(): { body(method: string, path: string): Check | null };
    documentQueryRules(bounds: Record<string, { default?: number; maximum?: number }>): { query(method: string, path: string): ((query: NewQuery) => void) | null };
  };
  query: { Query: { parse(search: string): NewQuery } };
  push: { pushItems(items: unknown[]): unknown };
}

/** This build's query, after its rules ran. */
interface NewQuery {
  number(key: string): number | null;
  bool(key: string): boolean | null;
}

/** OTHER_REPO's query (before the rules from the document). */
interface OldQuery {
  integerFrom(key: string, min: number, accepted: string): number | null;
  flag(key: string): boolean | null;
}

/** The pop routes' reads before the query rules (main at da8865c's `parseCommon`, default configuration), for the comparison only. */
function oldPopQuery(query: OldQuery): number {
  const batch = Math.min(query.integerFrom('batch', 1, 'an integer from 1 to 10000') ?? 1, 10_000);
  const timeout = query.integerFrom('timeout', Number.MIN_SAFE_INTEGER, 'an integer of milliseconds up to 600000 (0 or less: one attempt)') ?? 30_000;
  const partitions = query.integerFrom('partitions', Number.MIN_SAFE_INTEGER, 'an integer (0 or less: no limit)');
  const leaseSeconds = query.integerFrom('leaseSeconds', Number.MIN_SAFE_INTEGER, "an integer of seconds up to 315360000 (0 or less: the queue's leaseTime)");
  if ((partitions ?? 0) > 2_147_483_647 || (leaseSeconds ?? 0) > 315_360_000) throw new Error('refused');
  return batch + Math.max(0, Math.min(timeout, 600_000)) + Math.max(partitions ?? 1, 0) + Math.max(leaseSeconds ?? 0, 0) +
    Number(query.flag('wait') ?? false) + Number(query.flag('autoAck') ?? false);
}

const ROUNDS = 5;
const CALLS = 20_000;

/** µs of process CPU per call of `fn` (median of ROUNDS rounds after a warm-up). */
function cpuPerCall(fn: () => void): number {
  for (let i = 0; i < 2000; i++) fn();
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) fn();
    const used = process.cpuUsage(start);
    rounds.push((used.user + used.system) / CALLS);
  }
  return median(rounds);
}

/** The ack/batch route's checks before the edge validator (main at 6a2115f), for the comparison only. */
function oldAckChecks(body: { acknowledgments: unknown[] }): void {
  for (const raw of body.acknowledgments) {
    const fields = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
    if (typeof fields.transactionId !== 'string' || typeof fields.partitionId !== 'string') throw new Error('refused');
  }
}

async function main(): Promise<number> {
  const other = process.argv[2];
  if (other === undefined) {
    process.stderr.write('usage: node bench/dist/validation-ab.js OTHER_REPO  (a built checkout of the old build)\n');
    return 2;
  }
  const oldPush = (await import(path.resolve(other, 'packages/server/dist/http/routes/push.js'))) as { parsePushItems(raw: unknown): unknown };
  const oldQuery = (await import(path.resolve(other, 'packages/server/dist/http/query.js'))) as { Query: { parse(search: string): OldQuery } };
  const build: NewBuild = {
    validation: (await import(path.join(HERE, 'packages/server/dist/http/validation.js'))) as NewBuild['validation'],
    push: (await import(path.join(HERE, 'packages/server/dist/http/routes/push.js'))) as NewBuild['push'],
    query: (await import(path.join(HERE, 'packages/server/dist/http/query.js'))) as NewBuild['query'],
  };
  const popRules = build.validation.documentQueryRules({}).query(messagingRoutes.popQueue.method, messagingRoutes.popQueue.path)!;
  const search = 'batch=100&wait=true&timeout=30000&consumerGroup=g&autoAck=false';
  const newPopQuery = (): number => {
    const query = build.query.Query.parse(search);
    popRules(query);
    return query.number('batch')! + query.number('timeout')! + query.number('partitions')! + query.number('leaseSeconds')! +
      Number(query.bool('wait')) + Number(query.bool('autoAck'));
  };
  const validators = build.validation.documentValidators();
  const pushCheck = validators.body(messagingRoutes.push.method, messagingRoutes.push.path)!;
  const ackCheck = validators.body(messagingRoutes.ackBatch.method, messagingRoutes.ackBatch.path)!;
  const push = { items: Array.from({ length: 100 }, (_, i) => ({ queue: 'q', partition: `p${i}`, payload: { seq: i, ts: Date.now() }, transactionId: `t.${i}` })) };
  const acks = { acknowledgments: Array.from({ length: 100 }, (_, i) => ({ transactionId: `t${i}`, partitionId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', leaseId: null, status: 'completed' })) };
  const rows: Array<[string, number, number]> = [
    ['push, 100 items: checks + reading', cpuPerCall(() => void oldPush.parsePushItems(push.items)), cpuPerCall(() => { pushCheck(push); build.push.pushItems(push.items); })],
    ['push, 100 items: type checks alone', Number.NaN, cpuPerCall(() => pushCheck(push))],
    ['ack/batch, 100 acks: type checks', cpuPerCall(() => oldAckChecks(acks)), cpuPerCall(() => ackCheck(acks))],
    ['pop query (batch, wait, timeout, autoAck; parse + read)', cpuPerCall(() => void oldPopQuery(oldQuery.Query.parse(search))), cpuPerCall(() => void newPopQuery())],
  ];
  process.stdout.write('| request part | old µs CPU | new µs CPU |\n|---|---:|---:|\n');
  for (const [label, old, now] of rows) process.stdout.write(`| ${label} | ${Number.isNaN(old) ? '-' : old.toFixed(2)} | ${now.toFixed(2)} |\n`);
  return 0;
}

process.exitCode = await main();
