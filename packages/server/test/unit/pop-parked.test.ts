/**
 * Parked pops share their re-checks (src/core/pop-waiting.ts, issue 14): idle parked pops of one wait key cost
 * one claim attempt per backoff interval, not one each; a push wakes one attempt, answered to the oldest
 * waiter (FIFO); a message that appears without a wake (an expired lease) is still found within the backoff
 * ceiling; shutdown answers every parked pop; a batch claimed for a client that left is released.
 *
 * Backoff ticks check readiness first, in batches (src/core/readiness.ts): idle keys of many queues cost a
 * few readiness statements a second and no claims; a key answered ready, a wake during the check, or a check
 * that fails all lead to an attempt.
 *
 * The claim and readiness functions are injected (a counting in-memory stand-in for the pop procedure and
 * `queen.pop_ready`): what is under test is the scheduling of attempts, which the e2e long-poll tests
 * exercise against the real database.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { PayloadReader } from '../../src/core/payload-cipher.js';
import { PopService, type PopRequest, type PopResult, type PopStore } from '../../src/core/pop.js';
import { WakeBus } from '../../src/core/wake-bus.js';
import type { ClaimOutcome, ClaimParams, ClaimedMessage, ReadyKey } from '../../src/store/cursors.js';
import type { Store } from '../../src/store/index.js';

/** A queue in memory: claims take the oldest available message; every claim and release is recorded. */
class FakeQueue {
  available: string[] = [];
  claims = 0;
  readonly released: string[] = [];
  /** Delays each claim (to let a test act while one is in flight). */
  delayMs = 0;
  /** Readiness statements run, the keys they checked, and how each behaves. */
  readyStatements = 0;
  readyKeys = 0;
  readyDelayMs = 0;
  readyFails = false;

  /** Every key is ready while a message is available (the queue is shared by every key). */
  async ready(keys: readonly ReadyKey[]): Promise<boolean[]> {
    this.readyStatements += 1;
    this.readyKeys += keys.length;
    if (this.readyDelayMs > 0) await sleep(this.readyDelayMs);
    if (this.readyFails) throw new Error('database unreachable');
    return keys.map(() => this.available.length > 0);
  }

  async claim(params: ClaimParams): Promise<ClaimOutcome> {
    this.claims += 1;
    if (this.delayMs > 0) await sleep(this.delayMs);
    const payload = this.available.shift();
    if (payload === undefined) return { kind: 'empty', reason: 'none' };
    const message: ClaimedMessage = {
      queue: 'q', partitionId: 'p1', partitionName: 'Default', messageId: params.leaseId, transactionId: payload,
      traceId: null, payload, producerSub: null, createdAt: new Date().toISOString(), traceContext: null,
    };
    return { kind: 'messages', messages: [message] };
  }
}

function service(queue: FakeQueue, bus: WakeBus): PopService {
  const store: PopStore = {
    cursorClaim: (params) => queue.claim(params),
    leaseRelease: async ({ leaseId }) => {
      queue.released.push(leaseId);
    },
    cursorsReady: ({ keys }) => queue.ready(keys),
    // A checked claim (autoAck on a queue that may hold sealed payloads) runs its work on the same stand-in.
    transaction: async (work) => (await work(store as unknown as Store)).value,
  };
  return new PopService({
    store,
    sealed: { mayHoldSealed: async () => false },
    payloads: new PayloadReader(null),
    bus,
    settings: { waitInitialIntervalMs: 100, waitBackoffThreshold: 3, waitBackoffMultiplier: 2, waitMaxIntervalMs: 1000, defaultSubscriptionMode: 'all' },
    maxConcurrentReattempts: 4,
    onProcedureError: () => undefined,
    isProcedureError: () => false,
  });
}

function request(timeoutMs: number, queue = 'q'): PopRequest {
  return {
    scope: 'queue', queue, partition: null, namespace: null, task: null, consumerGroup: null, batch: 1,
    maxPartitions: 1, leaseSeconds: 60, autoAck: false, wait: true, timeoutMs, subscriptionMode: null,
    subscriptionFrom: null, arrivedAt: Date.now(),
  };
}

/** Parks `n` pops one after the other (each parked before the next arrives); results in arrival order. */
async function park(pop: PopService, bus: WakeBus, n: number, timeoutMs = 30_000, queueOf = (_i: number) => 'q') {
  const controllers: AbortController[] = [];
  const results: Array<PopResult | null> = [];
  const done: Array<Promise<void>> = [];
  for (let i = 0; i < n; i += 1) {
    const controller = new AbortController();
    controllers.push(controller);
    results.push(null);
    const before = bus.parked;
    done.push(pop.pop(request(timeoutMs, queueOf(i)), controller.signal).then((result) => void (results[i] = result)));
    while (bus.parked === before) await sleep(1);
  }
  return { results, done, abortAll: () => controllers.forEach((c) => c.abort()), abort: (i: number) => controllers[i]!.abort() };
}

const payloadOf = (result: PopResult | null): string | null => (result?.kind === 'messages' ? result.messages[0]!.payload : null);
const push = (bus: WakeBus): void => bus.signal({ queue: 'q', namespace: null, task: null });

describe('parked pops share their re-checks', () => {
  test('200 idle parked pops on one queue cost about one claim per second, not one each', async () => {
    const queue = new FakeQueue();
    const bus = new WakeBus();
    const pop = service(queue, bus);
    const parked = await park(pop, bus, 200);
    await sleep(800); // the key's backoff reaches its 1 s ceiling
    const before = queue.claims;
    await sleep(2000);
    const during = queue.claims - before;
    assert.ok(during <= 4, `${during} claims in 2 s with 200 idle parked pops`);
    assert.equal(bus.parked, 200);
    parked.abortAll();
    await Promise.all(parked.done);
    assert.ok(parked.results.every((r) => r?.kind === 'empty' && r.reason === 'none'));
    assert.equal(bus.parked, 0);
  });

  test('one push wakes one attempt, answered to the oldest waiter; further pushes go FIFO', async () => {
    const queue = new FakeQueue();
    const bus = new WakeBus();
    const pop = service(queue, bus);
    const parked = await park(pop, bus, 50);
    await sleep(300);
    const before = queue.claims;
    queue.available.push('m1');
    push(bus);
    await sleep(50);
    assert.deepEqual(parked.results.map(payloadOf).filter((p) => p !== null), ['m1']);
    assert.equal(payloadOf(parked.results[0]!), 'm1');
    // The delivery is followed by one attempt for the next waiter (more might remain), which finds nothing.
    assert.ok(queue.claims - before <= 2, `${queue.claims - before} claims for one push`);
    assert.equal(bus.parked, 49);

    queue.available.push('m2', 'm3', 'm4');
    push(bus);
    push(bus);
    push(bus);
    await sleep(50);
    assert.deepEqual(parked.results.slice(0, 5).map(payloadOf), ['m1', 'm2', 'm3', 'm4', null]);
    assert.equal(bus.parked, 46);
    parked.abortAll();
    await Promise.all(parked.done);
  });

  test('a message that appears without a wake (an expired lease) is found within the backoff ceiling', async () => {
    const queue = new FakeQueue();
    const bus = new WakeBus();
    const pop = service(queue, bus);
    const parked = await park(pop, bus, 20);
    await sleep(1500);
    queue.available.push('redelivered');
    const since = Date.now();
    while (parked.results[0] === null && Date.now() - since < 3000) await sleep(10);
    assert.equal(payloadOf(parked.results[0]!), 'redelivered');
    assert.ok(Date.now() - since <= 1300, `found after ${Date.now() - since} ms`);
    parked.abortAll();
    await Promise.all(parked.done);
  });

  test('each parked pop keeps its own timeout', async () => {
    const queue = new FakeQueue();
    const bus = new WakeBus();
    const pop = service(queue, bus);
    const started = Date.now();
    const short = pop.pop(request(300), new AbortController().signal);
    const long = pop.pop(request(900), new AbortController().signal);
    assert.deepEqual(await short, { kind: 'empty', reason: 'timeout' });
    const shortAt = Date.now() - started;
    assert.deepEqual(await long, { kind: 'empty', reason: 'timeout' });
    const longAt = Date.now() - started;
    assert.ok(shortAt >= 290 && shortAt < 700, `short timed out after ${shortAt} ms`);
    assert.ok(longAt >= 890, `long timed out after ${longAt} ms`);
  });

  test('shutdown answers every parked pop `shutdown`', async () => {
    const queue = new FakeQueue();
    const bus = new WakeBus();
    const pop = service(queue, bus);
    const parked = await park(pop, bus, 30);
    pop.shutdown();
    await Promise.all(parked.done);
    assert.ok(parked.results.every((r) => r?.kind === 'empty' && r.reason === 'shutdown'));
    assert.equal(bus.parked, 0);
  });

  test('a batch claimed for a client that left during the attempt is released, and the next waiter is served', async () => {
    const queue = new FakeQueue();
    const bus = new WakeBus();
    const pop = service(queue, bus);
    const parked = await park(pop, bus, 3);
    queue.delayMs = 100;
    queue.available.push('a', 'b');
    push(bus);
    await sleep(30); // the attempt for waiter 0 is in flight
    parked.abort(0);
    await Promise.all([parked.done[0], parked.done[1]]);
    assert.deepEqual(parked.results[0], { kind: 'empty', reason: 'none' });
    assert.equal(queue.released.length, 1);
    assert.equal(payloadOf(parked.results[1]!), 'b');
    parked.abortAll();
    await Promise.all(parked.done);
  });
  test('idle parked pops of 300 queues cost a few readiness statements a second and no claims', async () => {
    const queue = new FakeQueue();
    const bus = new WakeBus();
    const pop = service(queue, bus);
    const parked = await park(pop, bus, 300, 30_000, (i) => `q${i}`);
    await sleep(800); // every key's backoff reaches its 1 s ceiling
    const claims = queue.claims;
    const statements = queue.readyStatements;
    const keys = queue.readyKeys;
    await sleep(2000);
    assert.equal(queue.claims - claims, 0, 'no key was ready: no claim');
    const ran = queue.readyStatements - statements;
    assert.ok(ran >= 2 && ran <= 110, `${ran} readiness statements in 2 s`);
    assert.ok(queue.readyKeys - keys >= 500, `${queue.readyKeys - keys} key checks in 2 s (each key at least once a second)`);
    parked.abortAll();
    await Promise.all(parked.done);
    assert.equal(bus.parked, 0);
  });

  test('a wake during a readiness check ends it: the attempt runs at once', async () => {
    const queue = new FakeQueue();
    const bus = new WakeBus();
    const pop = service(queue, bus);
    const parked = await park(pop, bus, 5);
    queue.readyDelayMs = 2000;
    const statements = queue.readyStatements;
    const checkBy = Date.now() + 3000;
    while (queue.readyStatements === statements && Date.now() < checkBy) await sleep(5);
    assert.ok(queue.readyStatements > statements, 'a readiness check is in flight');
    queue.available.push('woken');
    const since = Date.now();
    push(bus);
    while (parked.results[0] === null && Date.now() - since < 3000) await sleep(5);
    assert.equal(payloadOf(parked.results[0]!), 'woken');
    assert.ok(Date.now() - since < 500, `delivered ${Date.now() - since} ms after the wake`);
    parked.abortAll();
    await Promise.all(parked.done);
  });

  test('a failed readiness check attempts instead, so a message is still found without a wake', async () => {
    const queue = new FakeQueue();
    const bus = new WakeBus();
    const pop = service(queue, bus);
    queue.readyFails = true;
    const parked = await park(pop, bus, 3);
    await sleep(300);
    const claims = queue.claims;
    queue.available.push('found');
    const since = Date.now();
    while (parked.results[0] === null && Date.now() - since < 3000) await sleep(10);
    assert.equal(payloadOf(parked.results[0]!), 'found');
    assert.ok(queue.claims > claims);
    parked.abortAll();
    await Promise.all(parked.done);
  });
});
