/**
 * Several real brokers on one database (docs/client.md): which broker each strategy reaches (the
 * broker's own server_id says), and failover when the broker a consume talks to is stopped mid-consume,
 * without losing a message.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDatabase, startBroker, uniqueQueue, type BrokerProcess, type TestDatabase } from '../../server/test/support/harness.js';
import { LoadBalancer } from '../src/balancer.js';
import { QUEUE_MODE } from '../src/index.js';
import { recordingLogger, testClient } from './support.js';

let db: TestDatabase;
let brokers: BrokerProcess[] = [];
before(async () => {
  db = await createDatabase();
  brokers = [await startBroker(db), await startBroker(db)];
});
after(async () => {
  for (const b of brokers) await b.stop();
  await db.close();
});

const urls = () => brokers.map((b) => b.url);
const serverIdOf = async (q: ReturnType<typeof testClient>): Promise<string> => ((await q.admin.health()) as { shared_state: { server_id: string } }).shared_state.server_id;

describe('strategies against real brokers', () => {
  test('round-robin alternates brokers; session sticks to one', async () => {
    const rr = testClient(urls(), { loadBalancingStrategy: 'round-robin' });
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await serverIdOf(rr));
    assert.equal(new Set(seen).size, 2);
    assert.notEqual(seen[0], seen[1]);
    assert.equal(seen[0], seen[2]);
    const session = testClient(urls(), { loadBalancingStrategy: 'session' });
    const sticky = new Set<string>();
    for (let i = 0; i < 4; i++) sticky.add(await serverIdOf(session));
    assert.equal(sticky.size, 1);
  });

  test('affinity: every pop of one consumer key reaches the same broker and gets real messages', async () => {
    const name = uniqueQueue();
    const hits: string[] = [];
    const recording = (async (input: string | URL | Request, init?: RequestInit) => {
      hits.push(new URL(String(input)).origin);
      return fetch(input, init);
    }) as typeof fetch;
    const q = testClient(urls(), { fetch: recording });
    await q.queue<number>(name).push(Array.from({ length: 6 }, (_, i) => ({ data: i })));
    hits.length = 0;
    const got: number[] = [];
    for (let i = 0; i < 6; i++) {
      const [msg] = await q.queue<number>(name).group('g').wait(false).pop();
      got.push(msg!.data);
      await q.ack(msg!);
    }
    assert.deepEqual(got, [0, 1, 2, 3, 4, 5]);
    const popHits = hits.filter((_, i) => i % 2 === 0);
    assert.equal(new Set(popHits).size, 1, 'pops stay on one broker');
    const expected = new LoadBalancer(urls(), { strategy: 'affinity', ringSize: 128, healthRetryAfterMillis: 5000 }).order(`${name}:*:g`)[0];
    assert.equal(popHits[0], expected);
  });
});

describe('failover', () => {
  test('stopping the broker a consume uses mid-consume loses no message', async () => {
    const name = uniqueQueue();
    const logger = recordingLogger();
    const q = testClient(urls(), { logger, healthRetryAfterMillis: 60_000 });
    await q.queue(name).config({ leaseTime: 3 }).create();
    const total = 120;
    for (let p = 0; p < 4; p++) {
      await q.queue<number>(name).partition(`p${p}`).push(Array.from({ length: total / 4 }, (_, i) => ({ data: p * 1000 + i })));
    }
    const owner = new LoadBalancer(urls(), { strategy: 'affinity', ringSize: 128, healthRetryAfterMillis: 5000 }).order(`${name}:*:${QUEUE_MODE}`)[0];
    const victim = brokers.find((b) => b.url === owner)!;
    const handled = new Set<number>();
    let stopping: Promise<unknown> | undefined;
    const result = await q
      .queue<number>(name)
      .batch(5)
      .concurrency(2)
      .idleMillis(6000)
      .timeoutMillis(2000)
      .each()
      .consume(async (msg) => {
        handled.add(msg.data);
        if (handled.size === 30 && !stopping) stopping = victim.stop();
        await new Promise((r) => setTimeout(r, 2));
      });
    await stopping;
    assert.equal(victim.process.exitCode, 0, 'the owner broker was stopped');
    assert.ok(result.processed >= total, `processed ${result.processed}`);
    const expected = [0, 1, 2, 3].flatMap((p) => Array.from({ length: total / 4 }, (_, i) => p * 1000 + i));
    assert.deepEqual([...handled].sort((a, b) => a - b), expected, 'every message handled at least once');
    const survivor = brokers.find((b) => b !== victim)!;
    assert.deepEqual(await testClient(survivor.url).queue(name).batch(200).wait(false).pop(), [], 'everything acked');
    brokers = brokers.filter((b) => b !== victim);
    assert.ok(logger.entries.some((e) => e.level === 'warn' || e.level === 'error'), 'the failure was logged');
  });
});
