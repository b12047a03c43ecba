import assert from 'node:assert/strict';
import { test } from 'node:test';
import { client, uniqueQueue, useBroker } from '../support/harness.js';

const setup = useBroker();

test('push then pop returns the message with the exact wire shape', async () => {
  const api = client(setup.broker.url);
  const queue = uniqueQueue('smoke');
  const pushed = await api.push([{ queue, payload: { hello: 'world' }, transactionId: 'tx-1' }]);
  assert.equal(pushed.status, 201);
  assert.equal(pushed.json[0].status, 'queued');
  const popped = await api.get(`/api/v1/pop/queue/${queue}`);
  assert.equal(popped.status, 200);
  assert.deepEqual(Object.keys(popped.json.messages[0]), ['id', 'transactionId', 'traceId', 'data', 'producerSub', 'createdAt', 'partitionId', 'partition', 'leaseId', 'consumerGroup']);
  assert.deepEqual(popped.json.messages[0].data, { hello: 'world' });
  assert.match(popped.json.messages[0].createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
});
