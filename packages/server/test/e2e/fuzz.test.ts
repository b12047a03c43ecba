/**
 * A bounded, seeded fuzz of every route family (issue 13; docs/api.md 1.4 "never a 5xx for client input", 1.9, 1.10).
 *
 * 2 000 requests (FUZZ_REQUESTS), 8 at a time, built from a seeded generator (FUZZ_SEED; a failure prints the
 * seed and the request) out of hostile values: NUL bytes and unpaired surrogates in every string, names of 256
 * and 10 000 characters, integers past 2^31 and 2^53, non-numbers, wrong JSON types, invalid UUIDs, malformed
 * and NUL percent-escapes in paths and queries, bodies nested past the depth limit. Meanwhile a ledger queue
 * receives valid pushes (before and during the fuzz); the fuzz never names it. Asserted: no response is a 5xx
 * (nor a pop's 204 `error`), none carries PostgreSQL's text, the ledger's counters reach queen.stats_counters,
 * and afterwards every message the ledger accepted is delivered exactly once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';

const SEED = Number(process.env.FUZZ_SEED ?? 13);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2000);
const CONCURRENCY = 8;
const LEDGER = uniqueQueue('ledger');

const setup = useBroker({ STATS_INTERVAL_MS: '500' });

/** mulberry32: a small, fast, seeded generator. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = generator(SEED);
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
const chance = (p: number): boolean => random() < p;

const FUZZ_QUEUES = ['fz-a', 'fz-b.task', 'fz-c.x.y'];
const HOSTILE_STRINGS = [
  '\u0000', 'a\u0000b', 's\ud800x', '\udfff', 'x\ud800', '', ' ', 'x'.repeat(256), 'y'.repeat(10_000), '%', '../..',
  "'; DROP TABLE queen.queues; --", '\\', '"', '\u2028', '😀', 'Default', '__QUEUE_MODE__', 'not-a-uuid',
  '0198f2c0-0000-7000-8000-00000000zzzz', '00000000-0000-0000-0000-000000000000', '2026-13-45T99:99:99Z', 'now',
];
const HOSTILE_NUMBERS = ['2147483648', '-2147483649', '9007199254740993', '1e309', '-1', '0', 'abc', '1.5', '+7', '99999999999999999999', '-0'];

function hostileString(): string {
  return chance(0.25) ? pick(FUZZ_QUEUES) : pick(HOSTILE_STRINGS);
}

/** A JSON value of any type, hostile where it can be. */
function hostileValue(): unknown {
  switch (Math.floor(random() * 9)) {
    case 0: return hostileString();
    case 1: return hostileString();
    case 2: return Number(pick(HOSTILE_NUMBERS));
    case 3: return pick([true, false, null]);
    case 4: return [hostileString(), 1];
    case 5: return { k: hostileString() };
    case 6: return pick([2147483648, -1, 1e300, 0.5, Number.MAX_SAFE_INTEGER + 2]);
    case 7: return crypto.randomUUID();
    default: return undefined;
  }
}

/** Percent-encodes a string; an unpaired surrogate (which has no UTF-8 form) becomes the bytes of one, malformed. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return encodeURIComponent(value.replace(/[\ud800-\udfff]/g, '')) + '%ED%A0%80';
  }
}

/** A path segment: ordinary, encoded hostile, or raw malformed escapes. */
function segment(): string {
  const roll = random();
  if (roll < 0.15) return pick(['%00', 'a%00b', '%zz', '%ED%A0%80', '%E0%A4%A', '%2F', '%25']);
  if (roll < 0.3) return crypto.randomUUID();
  const value = hostileString();
  return value === '' ? 'x' : encode(value.length > 1000 ? value.slice(0, 1000) : value);
}

/** A query string with some of `keys`, each hostile. */
function query(keys: readonly string[]): string {
  const parts: string[] = [];
  for (const key of keys) {
    if (!chance(0.5)) continue;
    const roll = random();
    const value = roll < 0.4 ? pick(HOSTILE_NUMBERS) : roll < 0.5 ? pick(['%00', '%zz', 'a%00', '%ED%A0%80']) : encode(hostileString().slice(0, 300));
    parts.push(`${key}=${value}`);
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

/** An object whose fields are hostile values, dropping undefined ones. */
function fields(names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const value = chance(0.5) ? hostileString() : hostileValue();
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** JSON text nested `depth` levels deep inside a push. */
function deepPush(depth: number): string {
  return `{"items":[{"queue":"fz-a","payload":${'['.repeat(depth)}${']'.repeat(depth)}}]}`;
}

const POP_KEYS = ['batch', 'partitions', 'wait', 'timeout', 'leaseSeconds', 'consumerGroup', 'autoAck', 'subscriptionMode', 'subscriptionFrom', 'namespace', 'task'];
const LIST_KEYS = ['queue', 'partition', 'consumerGroup', 'namespace', 'ns', 'task', 'status', 'from', 'to', 'limit', 'offset', 'interval', 'minLagSeconds', 'hostname', 'serverId', 'traceId', 'name'];

interface FuzzRequest { method: string; path: string; body?: unknown }

/** One random request over the route table. */
function nextRequest(): FuzzRequest {
  const family = Math.floor(random() * 22);
  const anyBody = (names: readonly string[]): unknown => (chance(0.1) ? pick(['', '[]', 'null', '{', '"x"', deepPush(600)]) : fields(names));
  switch (family) {
    case 0: {
      const n = 1 + Math.floor(random() * 3);
      const items = Array.from({ length: n }, () => ({ ...fields(['partition', 'transactionId', 'traceId', 'payload']), queue: chance(0.8) ? hostileString() : hostileValue() }));
      return { method: 'POST', path: '/api/v1/push', body: chance(0.08) ? deepPush(pick([511, 512, 600, 5000])) : { items } };
    }
    case 1: {
      // A pop that may wait only briefly: the fuzz stays bounded in time.
      const q = query(POP_KEYS.filter((k) => k !== 'wait' && k !== 'timeout')) || '?x=1';
      const wait = chance(0.1) ? '&wait=true&timeout=50' : '';
      return { method: 'GET', path: pick([`/api/v1/pop/queue/${segment()}${q}${wait}`, `/api/v1/pop/queue/${segment()}/partition/${segment()}${q}${wait}`, `/api/v1/pop${q}${wait}`]) };
    }
    case 2: return { method: 'POST', path: '/api/v1/ack', body: anyBody(['transactionId', 'partitionId', 'status', 'consumerGroup', 'leaseId', 'error']) };
    case 3: {
      const acknowledgments = Array.from({ length: 1 + Math.floor(random() * 3) }, () => fields(['transactionId', 'partitionId', 'status', 'consumerGroup', 'leaseId', 'error']));
      return { method: 'POST', path: '/api/v1/ack/batch', body: chance(0.1) ? anyBody([]) : { acknowledgments, ...fields(['consumerGroup']) } };
    }
    case 4: return { method: 'POST', path: `/api/v1/lease/${segment()}/extend`, body: fields(['seconds']) };
    case 5: return { method: 'POST', path: '/api/v1/configure', body: chance(0.1) ? anyBody([]) : { queue: hostileString(), ...fields(['namespace', 'task']), options: fields(['leaseTime', 'retryLimit', 'maxSize', 'ttl', 'priority', 'delayedProcessing', 'encryptionEnabled', 'deadLetterQueue']) } };
    case 6: return { method: pick(['GET', 'DELETE']), path: `/api/v1/resources/queues/${segment()}` };
    case 7: {
      const op = chance(0.5)
        ? { type: 'push', items: [{ queue: hostileString(), ...fields(['partition', 'payload', 'transactionId', 'traceId']) }] }
        : { type: pick(['ack', 'nope', 1]), ...fields(['transactionId', 'partitionId', 'status', 'consumerGroup']) };
      return { method: 'POST', path: '/api/v1/transaction', body: chance(0.1) ? anyBody([]) : { operations: [op], requiredLeases: [hostileValue()] } };
    }
    case 8: return { method: 'DELETE', path: `/api/v1/queues/${segment()}/clear${query(['partition'])}` };
    case 9: return { method: 'GET', path: `/api/v1/messages${query(LIST_KEYS)}` };
    case 10: {
      const base = `/api/v1/messages/${segment()}/${segment()}`;
      return pick<FuzzRequest>([{ method: 'GET', path: base }, { method: 'DELETE', path: base }, { method: 'POST', path: `${base}/retry`, body: fields([]) },
        { method: 'POST', path: `${base}/dlq`, body: fields(['consumerGroup', 'error']) }]);
    }
    case 11: return { method: 'GET', path: `/api/v1/dlq${query(LIST_KEYS)}` };
    case 12: return { method: 'GET', path: `${pick(['/api/v1/resources/queues', '/api/v1/resources/namespaces', '/api/v1/resources/tasks', '/api/v1/resources/overview', '/api/v1/resources/partitions'])}${query(LIST_KEYS)}` };
    case 13: return { method: 'GET', path: pick(['/api/v1/consumer-groups', '/api/v1/consumer-groups/lagging', `/api/v1/consumer-groups/${segment()}`]) + query(LIST_KEYS) };
    case 14: return pick<FuzzRequest>([
      { method: 'DELETE', path: `/api/v1/consumer-groups/${segment()}${chance(0.5) ? `/queues/${segment()}` : ''}${query(['deleteMetadata'])}` },
      { method: 'POST', path: `/api/v1/consumer-groups/${segment()}/subscription`, body: anyBody(['subscriptionTimestamp', 'queue']) },
    ]);
    case 15: return { method: 'POST', path: `/api/v1/consumer-groups/${segment()}/queues/${segment()}${chance(0.5) ? `/partitions/${segment()}` : ''}/seek`, body: anyBody(['timestamp', 'toEnd']) };
    case 16: return pick<FuzzRequest>([
      { method: 'POST', path: '/api/v1/traces', body: anyBody(['transactionId', 'partitionId', 'consumerGroup', 'eventType', 'traceName', 'traceNames', 'workerId', 'data']) },
      { method: 'GET', path: `/api/v1/traces/${segment()}/${segment()}` },
      { method: 'GET', path: `/api/v1/traces/by-name/${segment()}${query(LIST_KEYS)}` },
      { method: 'GET', path: `/api/v1/traces/names${query(LIST_KEYS)}` },
    ]);
    case 17: return { method: 'GET', path: `${pick(['/api/v1/status', '/api/v1/status/queues', `/api/v1/status/queues/${segment()}`, `/api/v1/status/queues/${segment()}/messages`, '/api/v1/status/analytics', '/api/v1/status/buffers'])}${query(LIST_KEYS)}` };
    case 18: return { method: 'GET', path: `/api/v1/analytics/${pick(['worker-metrics', 'system-metrics', 'queue-lag', 'queue-ops', 'queue-parked-replicas', 'retention', 'postgres-stats'])}${query(LIST_KEYS)}` };
    case 19: return pick<FuzzRequest>([
      { method: 'POST', path: '/api/v1/stats/refresh', body: fields([]) },
      { method: 'GET', path: pick(['/api/v1/system/maintenance', '/api/v1/system/maintenance/pop', '/api/v1/system/shared-state']) },
      // Only bodies the maintenance routes refuse: the fuzz never switches a mode on.
      { method: 'POST', path: pick(['/api/v1/system/maintenance', '/api/v1/system/maintenance/pop']), body: { enabled: pick(['true', 1, null, hostileString()]) } },
    ]);
    case 20: return { method: 'GET', path: pick(['/health', '/metrics', '/metrics/prometheus']) };
    default: return { method: pick(['GET', 'POST', 'PUT', 'DELETE']), path: `/api/v1/${segment()}/${segment()}` };
  }
}

/** Sends one request and reads the answer as text (bodies are not all JSON: /metrics/prometheus). */
async function send(r: FuzzRequest): Promise<{ status: number; text: string; emptyReason: string | null }> {
  const body = r.body === undefined ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  const res = await fetch(`${setup.broker.url}${r.path}`, { method: r.method, ...(body === undefined ? {} : { body, headers: { 'Content-Type': 'application/json' } }) });
  return { status: res.status, text: await res.text(), emptyReason: res.headers.get('x-queen-empty-reason') };
}

test(`fuzz: ${REQUESTS} requests over every route family (seed ${SEED}): no 5xx, the ledger queue delivers each accepted message once`, { timeout: 240_000 }, async () => {
  const api = setup.api;
  const accepted = new Set<string>();
  let ledgerSeq = 0;
  const pushLedger = async (n: number): Promise<void> => {
    const items = Array.from({ length: n }, () => ({ queue: LEDGER, partition: `p${ledgerSeq % 3}`, transactionId: `L-${ledgerSeq++}`, payload: { seq: ledgerSeq } }));
    const res = await api.push(items);
    assert.equal(res.status, 201, res.text);
    for (const r of res.json as Array<{ status: string; transaction_id: string }>) {
      assert.equal(r.status, 'queued');
      accepted.add(r.transaction_id);
    }
  };
  await pushLedger(40);

  const failures: string[] = [];
  let sent = 0;
  const worker = async (): Promise<void> => {
    while (sent < REQUESTS) {
      const index = sent++;
      if (index % 50 === 0) await pushLedger(5); // accepted during the fuzz
      const r = nextRequest();
      const res = await send(r);
      const leak = /invalid byte sequence|syntax error|violates|out of range for type|unsupported Unicode|call stack/i.test(res.text);
      // A pop whose attempt failed in the database answers 204 `error`: a 5xx in disguise.
      if (res.status >= 500 || leak || res.emptyReason === 'error') {
        failures.push(`#${index} ${r.method} ${r.path.slice(0, 200)} ${typeof r.body === 'string' ? r.body.slice(0, 200) : JSON.stringify(r.body)?.slice(0, 300)} -> ${res.status} ${res.text.slice(0, 300)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  assert.ok(sent >= 2000);
  assert.deepEqual(failures, [], `seed ${SEED}: ${failures.length} requests failed`);

  // The counters kept flowing: the ledger's pushes reached queen.stats_counters despite the hostile names.
  const refresh = await api.post('/api/v1/stats/refresh', {});
  assert.equal(refresh.status, 200);
  const counted = await setup.db.query<{ n: string }>('SELECT coalesce(sum(push_messages), 0)::text AS n FROM queen.stats_counters WHERE queue_name = $1', [LEDGER]);
  assert.equal(Number(counted.rows[0]!.n), accepted.size);

  // Every accepted ledger message is delivered exactly once.
  const delivered = new Map<string, number>();
  for (let round = 0; round < 200; round++) {
    const res = await api.get(`/api/v1/pop/queue/${LEDGER}?batch=100&partitions=0&autoAck=true`);
    if (res.status === 204) break;
    assert.equal(res.status, 200, res.text);
    for (const m of (res.json as { messages: Array<{ transactionId: string }> }).messages) delivered.set(m.transactionId, (delivered.get(m.transactionId) ?? 0) + 1);
  }
  assert.deepEqual([...delivered.entries()].filter(([, n]) => n !== 1), [], 'no duplicates');
  assert.deepEqual([...accepted].filter((id) => !delivered.has(id)), [], 'nothing lost');
  assert.equal(delivered.size, accepted.size);
});
