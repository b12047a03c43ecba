/**
 * A database move whose source dies mid-move: pushes are buffered meanwhile, the status answers 503 (it lives in
 * the database), and once the source is back the move resumes (or, had the driver recorded the failure, a reset
 * and a new start finish it).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { client, uniqueQueue } from '../support/harness.js';
import { drain } from '../support/buffering.js';
import { MovePair } from '../support/move-pair.js';

const move = new MovePair({ env: { MIGRATION_SWITCH_TIMEOUT_MS: '3000' } });

test('the source dies mid-move: pushes are buffered, and when it is back the move resumes by itself', async () => {
  const api = client(move.broker.url);
  const queue = uniqueQueue('source-dies');
  for (let n = 1; n <= 10; n++) assert.equal((await api.push([{ queue, partition: 'p', transactionId: `p-${n}`, payload: { n } }])).status, 201);
  assert.equal((await api.post('/api/v1/migration/start', move.targetBody())).status, 202);
  await move.source.kill();
  for (let n = 11; n <= 15; n++) {
    const res = await api.push([{ queue, partition: 'p', transactionId: `p-${n}`, payload: { n } }]);
    assert.deepEqual([res.status, res.json[0].status], [201, 'buffered'], res.text);
  }
  const unavailable = await api.get('/api/v1/migration/status');
  assert.equal(unavailable.status, 503, 'the status lives in the database: 503 while it is down');
  await move.source.restart();
  const resumed = await move.statusUntil((s) => s.status === 'complete' || s.status === 'error', 90_000);
  // Either the driver recorded the failure before the source went (an error the operator resets), or the row kept
  // its phase and the move resumed once the driver's silence passed the take-over limit.
  if (resumed.status === 'error') {
    assert.match(resumed.error, /^the move stopped during preparing: /);
    assert.equal((await api.post('/api/v1/migration/reset')).status, 200);
    assert.equal((await api.post('/api/v1/migration/start', move.targetBody())).status, 202);
    assert.equal((await move.statusUntil((s) => s.status === 'complete' || s.status === 'error', 60_000)).status, 'complete');
  }
  await move.everyBrokerOnTarget();
  const got = await drain(api, queue, new Map([['p', 15]]));
  assert.deepEqual(got.get('p'), Array.from({ length: 15 }, (_, i) => `p-${i + 1}`));
});
