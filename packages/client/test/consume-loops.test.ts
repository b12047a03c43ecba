/**
 * How the consume loops stop, against a scripted server (answers a real broker cannot give on demand): an idle
 * stop lets in-flight pops finish instead of discarding what the broker already answered, and a loop that
 * throws stops every loop before the consume rejects.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { routes } from '../src/api/index.js';
import { QueenError } from '../src/index.js';
import { recordingLogger, scriptedServer, testClient, type ScriptedServer, type SeenRequest } from './support.js';

const servers: ScriptedServer[] = [];
async function serve(...args: Parameters<typeof scriptedServer>): Promise<ScriptedServer> {
  const s = await scriptedServer(...args);
  servers.push(s);
  return s;
}
after(async () => {
  for (const s of servers) await s.close();
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function wireMessage(n: number, fields: Record<string, unknown> = {}) {
  return {
    id: `00000000-0000-7000-8000-00000000000${n}`,
    transactionId: `tx-${n}`,
    traceId: null,
    data: n,
    producerSub: null,
    createdAt: new Date().toISOString(),
    partitionId: `00000000-0000-7000-8000-0000000000a${n}`,
    partition: 'Default',
    leaseId: `lease-${n}`,
    consumerGroup: '__QUEUE_MODE__',
    ...fields,
  };
}

const ackAnswer = (req: SeenRequest) => {
  const body = JSON.parse(req.body) as { transactionId: string };
  return { status: 200, body: [{ transactionId: body.transactionId, status: 'completed', success: true, error: null, leaseReleased: true, dlq: false }] };
};

describe('consume loops stop cleanly', () => {
  test('an idle stop does not abort another loop whose pop the broker is answering: its message is handled and acked', async () => {
    // The first pop is held until the consume has declared itself idle (its debug line), then answered with a
    // message: the ordering comes from events, not from guessed delays, so a loaded machine cannot swap it.
    let idle!: () => void;
    const declaredIdle = new Promise<void>((resolve) => (idle = resolve));
    let pops = 0;
    let popsAtIdle: number | undefined;
    void declaredIdle.then(() => (popsAtIdle = pops));
    const s = await serve((req) => {
      if (req.url.startsWith(routes.ackMessage.path)) return ackAnswer(req);
      pops += 1;
      if (pops === 1) return { status: 200, body: { messages: [wireMessage(1)] }, until: declaredIdle };
      return { status: 204, delayMillis: 50 }; // the other loop keeps finding nothing until the idle time is up
    });
    const logger = { ...recordingLogger(), debug: (msg: string) => void (msg === 'consume idle: no new pops' && idle()) };
    const q = testClient(s.url, { logger });
    const handled: number[] = [];
    const result = await q
      .queue<number>('q')
      .concurrency(2)
      .idleMillis(300)
      .each()
      .consume((m) => void handled.push(m.data));
    assert.deepEqual(handled, [1]);
    assert.deepEqual(result, { processed: 1, failed: 0 });
    assert.equal(s.seen.filter((r) => r.url.startsWith(routes.ackMessage.path)).length, 1, 'the message was acked, not left leased');
    assert.equal(pops, popsAtIdle, 'no pop started after the consume declared itself idle');
    await q.close();
  });

  test('a loop that starts after the idle time has passed still polls once: a busy start does not end the consume unpolled', async () => {
    // The first request of the client blocks its process for longer than the idle time (as loading the HTTP
    // stack does on a loaded machine), between the first loop's pop and the second loop's start.
    let first = true;
    const slowFirst: typeof fetch = (...args) => {
      if (first) {
        first = false;
        const end = Date.now() + 400;
        while (Date.now() < end); // synchronous on purpose: nothing else of the process runs meanwhile
      }
      return fetch(...args);
    };
    let pops = 0;
    const s = await serve((req) => {
      if (req.url.startsWith(routes.ackMessage.path)) return ackAnswer(req);
      pops += 1;
      return pops === 2 ? { status: 200, body: { messages: [wireMessage(1)] } } : { status: 204 };
    });
    const q = testClient(s.url, { fetch: slowFirst });
    const handled: number[] = [];
    const result = await q.queue<number>('q').concurrency(2).idleMillis(300).each().consume((m) => void handled.push(m.data));
    assert.ok(pops >= 2, `both loops polled (${pops} pops)`);
    assert.deepEqual(handled, [1]);
    assert.deepEqual(result, { processed: 1, failed: 0 });
    await q.close();
  });

  test('a loop that throws (auto-ack of a malformed message) stops every loop, then the consume rejects with its error', async () => {
    let pops = 0;
    const s = await serve(() => {
      pops += 1;
      if (pops === 1) return { status: 200, body: { messages: [wireMessage(1, { partitionId: '' })] } };
      return { status: 204, delayMillis: 100 };
    });
    const q = testClient(s.url);
    await assert.rejects(Promise.resolve(q.queue<number>('q').concurrency(2).each().consume(() => undefined)), (e: QueenError) => e instanceof QueenError && e.code === 'VALIDATION' && e.message === 'partitionId is required to ack a message');
    await sleep(100); // a pop the other loop had already sent still reaches the server
    const seen = s.seen.length;
    await sleep(600);
    assert.equal(s.seen.length, seen, 'no loop kept polling after the consume rejected');
    await q.close();
  });
});

describe('consume progress callbacks', () => {
  test('onPopRetry gets each passing pop failure before the re-poll; onAckRefused each refused auto-ack', async () => {
    let pops = 0;
    const s = await serve((req) => {
      if (req.url.startsWith(routes.ackBatch.path)) {
        const body = JSON.parse(req.body) as { acknowledgments: Array<{ transactionId: string }> };
        return { status: 200, body: body.acknowledgments.map((a) => ({ transactionId: a.transactionId, status: 'completed', success: false, error: 'Invalid lease', leaseReleased: false, dlq: false })) };
      }
      if (req.url.startsWith(routes.ackMessage.path)) {
        const body = JSON.parse(req.body) as { transactionId: string };
        return { status: 200, body: [{ transactionId: body.transactionId, status: 'completed', success: false, error: 'Invalid lease', leaseReleased: false, dlq: false }] };
      }
      pops += 1;
      if (pops === 1) return { status: 503, body: { error: 'Service Unavailable: the database is unreachable' } };
      if (pops === 2) return { status: 200, body: { messages: [wireMessage(1)] } };
      return { status: 204 };
    });
    const q = testClient(s.url, { retryAttempts: 1 });
    const retries: Array<[string, number | undefined]> = [];
    const refused: Array<{ transactionId: string; error: string }> = [];
    const result = await q.queue<number>('q').limit(1).consume(() => undefined, {
      onPopRetry: (error) => retries.push([error.code, error.status]),
      onAckRefused: (r) => refused.push(r),
    });
    assert.deepEqual(result, { processed: 1, failed: 0 });
    assert.deepEqual(retries, [['HTTP', 503]]);
    assert.deepEqual(refused, [{ transactionId: 'tx-1', error: 'Invalid lease' }]);
    await q.close();
  });

  test('a progress callback that throws is logged and the consume goes on', async () => {
    let pops = 0;
    const s = await serve((req) => {
      if (req.url.startsWith(routes.ackMessage.path) || req.url.startsWith(routes.ackBatch.path)) return ackAnswer(req);
      pops += 1;
      return pops === 1 ? { status: 500, body: { error: 'Internal server error' } } : { status: 200, body: { messages: [wireMessage(1)] } };
    });
    const logger = recordingLogger();
    const q = testClient(s.url, { retryAttempts: 1, logger });
    const result = await q.queue<number>('q').limit(1).consume(() => undefined, { onPopRetry: () => { throw new Error('boom'); } });
    assert.deepEqual(result, { processed: 1, failed: 0 });
    assert.ok(logger.entries.some((e) => e.level === 'error' && e.msg === 'consume callback threw'));
    await q.close();
  });
});
