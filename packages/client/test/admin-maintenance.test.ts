/**
 * Admin methods of the maintenance and shared-state routes (docs/api.md §7.9), checked against the shapes of the
 * spec and the behaviour they switch.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';
import { testClient, until } from './support.js';

const setup = useBroker();
const admin = () => testClient(setup.broker.url).admin;

describe('maintenance', () => {
  test('getMaintenanceMode()', async () => {
    const body = await admin().getMaintenanceMode();
    assert.equal(body.maintenanceMode, false);
    assert.equal(body.popMaintenanceMode, false);
    assert.equal(typeof body.bufferedMessages, 'number');
    assert.equal(typeof body.bufferHealthy, 'boolean');
    assert.deepEqual(Object.keys(body.bufferStats).sort(), ['dbHealthy', 'failedCount', 'failedFiles', 'pendingCount']);
  });

  test('setMaintenanceMode(enabled): pushes are buffered while on', async () => {
    const q = testClient(setup.broker.url);
    const on = await admin().setMaintenanceMode(true);
    try {
      assert.equal(on.maintenanceMode, true);
      assert.equal(typeof on.message, 'string');
      const [result] = await q.queue(uniqueQueue()).push([{ data: 1 }]);
      assert.equal(result!.status, 'buffered');
    } finally {
      const off = await admin().setMaintenanceMode(false);
      assert.equal(off.maintenanceMode, false);
    }
    // Until the buffer is replayed, new pushes follow into it (docs/api.md 9.4 rule 3): let the next test start clean.
    await until('the buffered push is replayed', async () => (await admin().getMaintenanceMode()).bufferedMessages === 0, 10_000);
  });

  test('getPopMaintenanceMode()', async () => {
    const body = await admin().getPopMaintenanceMode();
    assert.equal(body.popMaintenanceMode, false);
    assert.equal(typeof body.message, 'string');
  });

  test('setPopMaintenanceMode(enabled): pops answer nothing while on', async () => {
    const q = testClient(setup.broker.url);
    const name = uniqueQueue();
    await q.queue(name).push([{ data: 1 }]);
    const on = await admin().setPopMaintenanceMode(true);
    try {
      assert.equal(on.popMaintenanceMode, true);
      assert.deepEqual(await q.queue(name).wait(false).pop(), []);
    } finally {
      const off = await admin().setPopMaintenanceMode(false);
      assert.equal(off.popMaintenanceMode, false);
    }
    // This process applied the change before answering: the very next pop delivers.
    assert.equal((await q.queue(name).wait(false).pop()).length, 1);
  });

  test('getSharedState()', async () => {
    const body = await admin().getSharedState();
    assert.equal(typeof body.serverId, 'string');
    assert.ok(body.processes.some((p: { serverId: string; pid: number }) => p.serverId === body.serverId && p.pid === setup.broker.process.pid));
    assert.equal(body.maintenanceMode, false);
    assert.equal(body.popMaintenanceMode, false);
  });
});
