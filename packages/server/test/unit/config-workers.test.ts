/**
 * QUEEN_WORKERS (docs/configuration.md "Workers"): its default from the host's CPUs or the cgroup quota, its
 * range, the worker role the primary hands its workers, and the merge of the workers' /metrics bodies.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { describe, test } from 'node:test';
import { availableCpus, ConfigError, loadConfig } from '../../src/config.js';
import type { MetricsSummary } from '../../src/metrics/index.js';
import { mergeSummaries } from '../../src/metrics/workers.js';

describe('QUEEN_WORKERS', () => {
  test('defaults to the CPUs available: the host\'s, or fewer under a cgroup quota (rounded up)', () => {
    const host = os.availableParallelism();
    assert.equal(availableCpus(null), host);
    assert.equal(availableCpus('max 100000\n'), host);
    assert.equal(availableCpus('100000 100000\n'), 1);
    assert.equal(availableCpus('150000 100000\n'), Math.min(host, 2)); // 1.5 CPUs: two workers share them
    assert.equal(availableCpus(`${(host + 8) * 100000} 100000`), host); // a quota above the host's cores
    assert.equal(availableCpus('garbage'), host);
    assert.equal(loadConfig({}).workers, availableCpus());
  });

  test('takes 1 to 1024; anything else stops the start-up naming the variable', () => {
    assert.equal(loadConfig({ QUEEN_WORKERS: '1' }).workers, 1);
    assert.equal(loadConfig({ QUEEN_WORKERS: '4' }).workers, 4);
    for (const bad of ['0', '-1', 'two', '1.5', '1025']) {
      assert.throws(() => loadConfig({ QUEEN_WORKERS: bad }), (e: unknown) => e instanceof ConfigError && /QUEEN_WORKERS must be an integer between 1 and 1024/.test(e.message));
    }
  });

  test('a worker gets its slot and the embedded PostgreSQL\'s port from its primary; a set SERVER_ID gets the slot', () => {
    assert.equal(loadConfig({}).worker, null);
    const worker = loadConfig({ QUEEN_WORKER_INDEX: '1', QUEEN_WORKER_PG_PORT: '6633', SERVER_ID: 'edge-a' });
    assert.deepEqual(worker.worker, { index: 1, embeddedPort: 6633 });
    assert.equal(worker.serverId, 'edge-a-w1');
    assert.deepEqual(loadConfig({ QUEEN_WORKER_INDEX: '0', QUEEN_WORKER_PG_PORT: '0' }).worker, { index: 0, embeddedPort: null });
    assert.equal(loadConfig({ SERVER_ID: 'edge-a' }).serverId, 'edge-a');
  });
});

describe('the workers\' /metrics bodies', () => {
  const summary = (n: number): MetricsSummary => ({
    uptime: 10 * n,
    requests: { total: 100 * n, rate: 1.5 * n },
    messages: { total: 1000 * n, rate: 2.25 * n },
    database: { poolSize: 20, idleConnections: 18, waitingRequests: n },
    memory: { rss: 100, heapTotal: 50, heapUsed: 40, external: 5, arrayBuffers: 1 },
    cpu: { user: 1000 * n, system: 10 * n },
  });

  test('sum totals, rates, pools, memory and CPU; uptime is the longest', () => {
    assert.deepEqual(mergeSummaries([summary(1), summary(2)]), {
      uptime: 20,
      requests: { total: 300, rate: 4.5 },
      messages: { total: 3000, rate: 6.75 },
      database: { poolSize: 40, idleConnections: 36, waitingRequests: 3 },
      memory: { rss: 200, heapTotal: 100, heapUsed: 80, external: 10, arrayBuffers: 2 },
      cpu: { user: 3000, system: 30 },
    });
  });
});
