/**
 * `GET /ready` (docs/api.md 4.1a): which reason wins, the status and Retry-After, and the failover buffer's
 * BufferLog refusing an append past its size limit (then `full` until a file is deleted by replay).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { BufferLog } from '../../src/buffer/log.js';
import { BufferFullError } from '../../src/core/push.js';
import { readinessRoute, type ReadinessSources } from '../../src/http/routes/health.js';

function sources(draining: boolean, refusal: 'buffer full' | 'buffer write failed' | null, active: boolean): ReadinessSources {
  return {
    health: { draining: () => draining },
    buffer: { refusal, active: () => active, state: active ? 'buffering' : 'idle', bufferedCount: active ? 3 : 0, bytes: 10, maxBytes: 100 },
  };
}

async function ask(s: ReadinessSources): Promise<{ status: number; retryAfter: string | undefined; body: Record<string, unknown> }> {
  const reply = await readinessRoute(s).handle({ params: {}, query: undefined as never, body: {}, signal: new AbortController().signal, arrivedAt: 0, subject: null, admin: true, traceparent: null, tracestate: null });
  return { status: reply.status, retryAfter: reply.headers?.['Retry-After'], body: reply.body as Record<string, unknown> };
}

test('ready while pushes are committed or buffered; not ready while draining, full or failing, draining first', async () => {
  assert.deepEqual(await ask(sources(false, null, false)).then((r) => [r.status, r.retryAfter, r.body.ready, r.body.reason, r.body.writes]), [200, undefined, true, null, 'database']);
  assert.deepEqual(await ask(sources(false, null, true)).then((r) => [r.status, r.body.writes]), [200, 'buffer'], 'an outage: ready, writes buffered');
  assert.deepEqual(await ask(sources(false, 'buffer full', true)).then((r) => [r.status, r.retryAfter, r.body.reason]), [503, '1', 'buffer full']);
  assert.deepEqual(await ask(sources(false, 'buffer write failed', true)).then((r) => [r.status, r.body.reason]), [503, 'buffer write failed']);
  assert.deepEqual(await ask(sources(true, 'buffer full', true)).then((r) => [r.status, r.body.reason]), [503, 'draining']);
  const body = (await ask(sources(false, null, true))).body;
  assert.deepEqual(body.buffer, { state: 'buffering', buffered_messages: 3, detail: 'buffering pushes: 3 buffered messages wait for the database', bytes: 10, max_bytes: 100 });
});

test('BufferLog: an append past maxBytes is refused whole, the log is full until a replayed file is deleted', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-readiness-'));
  try {
    const log = new BufferLog({ dir, eventsPerFile: 2, maxBytes: 600, prepare: () => undefined, onDurable: () => undefined });
    const record = (n: number) => ({ queue: 'q', partition: 'p', transactionId: `t${n}`, traceId: null, traceContext: null, payload: JSON.stringify('x'.repeat(100)), producerSub: null });
    await log.append([record(1), record(2)]);
    await log.append([record(3)]);
    assert.ok(log.bytes <= 600, String(log.bytes));
    await assert.rejects(log.append([record(4), record(5)]), BufferFullError);
    assert.equal(log.full, true);
    assert.equal(log.pendingCount, 3, 'nothing of the refused append is kept');
    const [first] = log.files;
    const read = await log.read(first!, 10);
    await log.replayed(first!, read.records.length, read.next);
    assert.equal(log.full, false, 'room again once the replayed file is deleted');
    await log.append([record(4)]);
    await log.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
