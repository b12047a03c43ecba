/**
 * Helpers of the monitoring suites (metrics, status, analytics, heartbeats): traffic generators that assert
 * each step succeeded, the stats refresh that flushes a broker's counters, a Prometheus scrape, and a
 * condition poll for the few things that only happen on a ticker.
 */
import assert from 'node:assert/strict';
import { client } from './harness.js';
import { parsePrometheusText, type Family } from './prometheus.js';

/** A client bound to one broker. */
export type Api = ReturnType<typeof client>;

/** Polls `probe` every 50 ms until `ok` holds; fails with the last value after `timeoutMs`. */
export async function waitFor<T>(probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) assert.fail(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * POST /api/v1/stats/refresh: flushes this broker's counters; asserts every step succeeded. When another
 * broker's periodic cycle holds the cluster stats lock at that moment, the answer is `skipped` (docs/api.md 7.8);
 * this process's counters were flushed all the same (the flush comes before the lock is tried).
 */
export async function refresh(api: Api): Promise<void> {
  const res = await api.post('/api/v1/stats/refresh');
  assert.equal(res.status, 200, res.text);
  if (res.json.skipped === true) {
    assert.equal(res.json.reason, 'another_instance_running', res.text);
    return;
  }
  assert.equal(res.json.system?.ok, true, res.text);
}

/** Pushes one message per transaction id to (queue, partition) in one request; returns the partition id. */
export async function pushIds(api: Api, queue: string, ids: string[], partition = 'Default'): Promise<string> {
  const res = await api.push(ids.map((id) => ({ queue, partition, transactionId: id, payload: { id } })));
  assert.equal(res.status, 201, res.text);
  for (const item of res.json) assert.equal(item.status, 'queued', JSON.stringify(item));
  return res.json[0].partition_id;
}

/** A pop that must deliver: returns the body. `params` is the query string. */
export async function popOk(api: Api, path: string, params = ''): Promise<any> {
  const res = await api.get(`${path}?${params}`);
  assert.equal(res.status, 200, `expected a delivery from ${path}, got ${res.status} ${res.headers.get('x-queen-empty-reason')}`);
  return res.json;
}

/** POST /api/v1/ack/batch for the given messages of a pop body, one status each; asserts every ack applied. */
export async function ackAll(api: Api, popped: any, statuses: string[], extra: Record<string, unknown> = {}): Promise<void> {
  const acknowledgments = popped.messages.slice(0, statuses.length).map((m: any, i: number) => ({
    transactionId: m.transactionId, partitionId: m.partitionId, leaseId: popped.leaseId, status: statuses[i], ...extra,
  }));
  const res = await api.post('/api/v1/ack/batch', { acknowledgments, consumerGroup: popped.consumerGroup === '__QUEUE_MODE__' ? undefined : popped.consumerGroup });
  assert.equal(res.status, 200, res.text);
  for (const r of res.json) assert.equal(r.success, true, JSON.stringify(r));
}

/** GET /metrics/prometheus of the broker at `baseUrl`, checked for status and headers, parsed strictly. */
export async function scrape(baseUrl: string): Promise<Map<string, Family>> {
  const res = await fetch(`${baseUrl}/metrics/prometheus`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  assert.equal(res.headers.get('cache-control'), 'no-cache');
  return parsePrometheusText(await res.text());
}
