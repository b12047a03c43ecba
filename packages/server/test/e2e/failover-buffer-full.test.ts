/**
 * The bounded failover buffer (docs/api.md 9.5 rule 7, issue 41): with PostgreSQL stopped, pushes are buffered
 * until FILE_BUFFER_MAX_BYTES; the next one is answered 503 `the failover buffer is full` with Retry-After
 * (none of its items kept), `/ready` turns 503 `buffer full`, the gauges show the bytes against the limit.
 * Once PostgreSQL is back every 201 is delivered, nothing refused is, and the broker is ready again.
 *
 * PostgreSQL is this file's own (useOwnPostgres), stopped and started by the test.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drain, sent } from '../support/buffering.js';
import { client, uniqueQueue } from '../support/harness.js';
import { scrape, waitFor } from '../support/monitoring.js';
import { useOwnPostgres } from '../support/own-postgres.js';
import { sampleValue } from '../support/prometheus.js';

const MAX_BYTES = 16_384;
const own = useOwnPostgres('buffer-full', { FILE_BUFFER_MAX_BYTES: String(MAX_BYTES), FILE_BUFFER_FLUSH_MS: '20' });

test('a full buffer: 503 + Retry-After and /ready 503 `buffer full`, nothing refused is kept, every 201 delivered after', async () => {
  const api = client(own.broker.url);
  const queue = uniqueQueue('full');
  const payload = { text: 'x'.repeat(400) };
  await own.stopPostgres();

  let accepted = 0;
  let refused: Awaited<ReturnType<typeof api.push>> | null = null;
  for (let n = 1; refused === null; n++) {
    assert.ok(n < 200, 'the buffer never filled');
    const res = await api.push([{ queue, partition: 'p', transactionId: `full-p-${n}`, payload }]);
    if (res.status === 201) {
      assert.equal(res.json[0].status, 'buffered', res.text);
      accepted = n;
    } else {
      refused = res;
    }
  }
  assert.deepEqual([refused.status, refused.json, refused.headers.get('retry-after')], [503, { error: 'Service Unavailable: the failover buffer is full' }, '1']);
  assert.ok(accepted > 10, `only ${accepted} pushes fit`);

  const ready = await api.get('/ready');
  assert.deepEqual([ready.status, ready.headers.get('retry-after'), ready.json.ready, ready.json.reason], [503, '1', false, 'buffer full']);
  assert.equal(ready.json.buffer.max_bytes, MAX_BYTES);
  assert.ok(ready.json.buffer.bytes <= MAX_BYTES && ready.json.buffer.bytes > MAX_BYTES - 1024, JSON.stringify(ready.json.buffer));
  const families = await scrape(own.broker.url);
  assert.equal(sampleValue(families, 'queen_file_buffer_max_bytes'), MAX_BYTES);
  assert.equal(sampleValue(families, 'queen_file_buffer_bytes'), ready.json.buffer.bytes);
  // Still refused while full.
  assert.equal((await api.push([{ queue, partition: 'p', transactionId: 'full-p-big', payload: { text: 'y'.repeat(4000) } }])).status, 503);

  await own.startPostgres();
  const got = await drain(api, queue, new Map([['p', accepted]]), 60_000);
  assert.deepEqual(got.get('p'), sent('full', 'p', accepted), 'every acknowledged push, in order; nothing refused');
  const again = await waitFor(() => api.get('/ready'), (res) => res.status === 200, 20_000);
  assert.deepEqual([again.json.reason, again.json.writes], [null, 'database']);
  assert.ok(again.json.buffer.bytes < MAX_BYTES / 2, 'replayed files are deleted');
});
