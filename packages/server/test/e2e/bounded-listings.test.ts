/**
 * Listings are bounded in bytes (LISTING_MAX_BYTES): the DLQ listing and the trace listings carry payloads
 * and event data only while their running size, in page order, stays within the budget; the rest is left
 * out with a flag, its size and the message route that serves it. Every listing has a maximum page size.
 * The budget here is small (300 000 bytes) so that a few 120 kB messages show what 100 messages of 8 MB
 * did to an unbounded listing (a page past what the driver can hold, and a crashed broker).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';

const BUDGET = 300_000;
const setup = useBroker({ LISTING_MAX_BYTES: String(BUDGET) });

/** A payload of about `bytes` bytes of JSON. */
const heavy = (bytes: number, tag: string): Record<string, string> => ({ tag, fill: 'x'.repeat(bytes) });

/** Pushes one heavy message; returns its partition id. */
async function pushHeavy(queue: string, transactionId: string, bytes: number): Promise<string> {
  const res = await setup.api.push([{ queue, partition: 'p', transactionId, payload: heavy(bytes, transactionId) }]);
  assert.equal(res.status, 201, res.text);
  assert.equal(res.json[0].status, 'queued');
  return res.json[0].partition_id;
}

describe('the DLQ listing is bounded in bytes', () => {
  test('one 120 kB message dead-lettered for 6 groups: two payloads carried, four left out with flag, size and link', async () => {
    const queue = uniqueQueue('dlq-bytes');
    const pid = await pushHeavy(queue, 'big-1', 120_000);
    for (let g = 1; g <= 6; g++) {
      const res = await setup.api.post(`/api/v1/messages/${pid}/big-1/dlq`, { consumerGroup: `g${g}` });
      assert.equal(res.json.success, true, res.text);
    }
    const res = await setup.api.get(`/api/v1/dlq?queue=${queue}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.total, 6);
    assert.ok(res.text.length < BUDGET + 10_000, `answer of ${res.text.length} bytes exceeds the budget`);
    const entries = res.json.messages as any[];
    assert.equal(entries.length, 6);
    const carried = entries.filter((e) => e.data !== null);
    const left = entries.filter((e) => e.dataOmitted === true);
    assert.equal(carried.length, 2);
    assert.equal(left.length, 4);
    assert.equal(carried[0].data.tag, 'big-1');
    assert.equal(carried[0].dataOmitted, undefined);
    for (const entry of left) {
      assert.equal(entry.data, null);
      assert.ok(entry.dataBytes > 120_000 && entry.dataBytes < 121_000, String(entry.dataBytes));
      assert.equal(entry.dataUrl, `/api/v1/messages/${pid}/big-1`);
    }
    // The link serves the message in full.
    const detail = await setup.api.get(left[0].dataUrl);
    assert.equal(detail.status, 200);
    assert.equal(detail.json.payload.tag, 'big-1');
    assert.equal(detail.json.payload.fill.length, 120_000);
  });

  test('small payloads are all carried and carry no flags', async () => {
    const queue = uniqueQueue('dlq-small');
    const pid = await pushHeavy(queue, 'small-1', 100);
    for (const group of ['a', 'b']) await setup.api.post(`/api/v1/messages/${pid}/small-1/dlq`, { consumerGroup: group });
    const res = await setup.api.get(`/api/v1/dlq?queue=${queue}`);
    for (const entry of res.json.messages) {
      assert.equal(entry.data.tag, 'small-1');
      assert.equal('dataOmitted' in entry, false);
    }
  });
});

describe('the trace listings are bounded in bytes', () => {
  test('by name: 5 events of one 120 kB message: two message payloads carried, the rest flagged with their link', async () => {
    const queue = uniqueQueue('trace-bytes');
    const pid = await pushHeavy(queue, 't-1', 120_000);
    const name = `tn-${queue}`;
    for (let i = 0; i < 5; i++) {
      const res = await setup.api.post('/api/v1/traces', { partitionId: pid, transactionId: 't-1', data: { step: i }, traceNames: [name] });
      assert.equal(res.status, 201, res.text);
    }
    const res = await setup.api.get(`/api/v1/traces/by-name/${name}`);
    assert.equal(res.status, 200);
    assert.equal(res.json.total, 5);
    assert.ok(res.text.length < BUDGET + 10_000, `answer of ${res.text.length} bytes exceeds the budget`);
    const traces = res.json.traces as any[];
    assert.equal(traces.filter((t) => t.message_payload !== null).length, 2);
    const left = traces.filter((t) => t.message_payload_omitted === true);
    assert.equal(left.length, 3);
    for (const t of left) {
      assert.equal(t.message_payload_url, `/api/v1/messages/${pid}/t-1`);
      assert.ok(t.message_payload_bytes > 120_000);
      assert.notEqual(t.data, null, 'small event data still fits');
    }
  });

  test('per message: events whose data outgrows the budget are flagged, oldest first kept', async () => {
    const queue = uniqueQueue('trace-data');
    const pid = await pushHeavy(queue, 'd-1', 10);
    for (let i = 0; i < 4; i++) {
      const res = await setup.api.post('/api/v1/traces', { partitionId: pid, transactionId: 'd-1', data: heavy(100_000, `e${i}`) });
      assert.equal(res.status, 201, res.text);
    }
    const res = await setup.api.get(`/api/v1/traces/${pid}/d-1`);
    const traces = res.json.traces as any[];
    assert.deepEqual(traces.map((t) => t.data?.tag ?? null), ['e0', 'e1', null, null]);
    assert.equal(traces[2].data_omitted, true);
    assert.ok(traces[2].data_bytes > 100_000);
  });
});

describe('listings have a largest page and the message listing a cursor', () => {
  test('status/queues/:queue/messages?limit=2147483647 answers at most 1000 messages', async () => {
    const queue = uniqueQueue('page-max');
    const items = Array.from({ length: 1200 }, (_, i) => ({ queue, partition: 'p', transactionId: `m-${i}`, payload: { i } }));
    assert.equal((await setup.api.push(items)).status, 201);
    const res = await setup.api.get(`/api/v1/status/queues/${queue}/messages?limit=2147483647`);
    assert.equal(res.status, 200);
    assert.equal(res.json.length, 1000);
  });

  test('paging the message listing by nextCursor visits every message once, in the order of one big page', async () => {
    const queue = uniqueQueue('cursor');
    for (const partition of ['a', 'b', 'c']) {
      const items = Array.from({ length: 10 }, (_, i) => ({ queue, partition, transactionId: `${partition}-${i}`, payload: { i } }));
      assert.equal((await setup.api.push(items)).status, 201);
    }
    const whole = await setup.api.get(`/api/v1/messages?queue=${queue}&limit=1000`);
    assert.equal(whole.json.messages.length, 30);
    assert.equal(whole.json.nextCursor, null);
    for (const filter of ['', '&status=pending']) {
      const seen: string[] = [];
      let cursor = '';
      for (let i = 0; i < 10; i++) {
        const res = await setup.api.get(`/api/v1/messages?queue=${queue}&limit=7${filter}&cursor=${encodeURIComponent(cursor)}`);
        assert.equal(res.status, 200, res.text);
        seen.push(...res.json.messages.map((m: any) => m.transactionId));
        if (res.json.nextCursor === null) break;
        cursor = res.json.nextCursor;
      }
      assert.deepEqual(seen, whole.json.messages.map((m: any) => m.transactionId), `filter ${filter || 'none'}`);
    }
    const bad = await setup.api.get(`/api/v1/messages?queue=${queue}&cursor=not-a-cursor`);
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.json, { error: 'Invalid cursor' });
  });

  test('a status filter with offset=2147483647 answers at once, empty, with no statement left running', async () => {
    const queue = uniqueQueue('deep');
    const started = Date.now();
    const res = await setup.api.get(`/api/v1/messages?queue=${queue}&status=pending&offset=2147483647`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.messages, []);
    assert.ok(Date.now() - started < 5000);
  });
});
