/**
 * When a lease starts (queen.pop_messages): at the claim, not at the start of the pop's transaction. A
 * wildcard pop over many partitions can walk for longer than a short lease (issue 14: warm-up pops of 10 s
 * and more under a 10 s lease); counted from the transaction's start, the lease it handed out had already
 * expired on delivery, and the consumer's ack of a batch it had just received failed.
 *
 * Spec: docs/api.md 5.9 (the claim leases the span for the queue's leaseTime, or the request's override).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueQueue } from '../support/harness.js';
import { ack, pop, push, useSqlSessions } from '../support/hot-path.js';

const sql = useSqlSessions();

describe('a lease counts from the claim', () => {
  test('a claim made 1.5 s into its transaction with a 1 s lease is live after it, and its ack succeeds', async () => {
    const queue = uniqueQueue('lease-start');
    const [pushed] = await push(sql.pool, [{ queue, partition: 'P', tx: 'm1' }]);
    const s = await sql.session();
    await s.client.query('BEGIN');
    await s.client.query('SELECT pg_sleep(1.5)');
    const claim = await pop(s.client, { scope: 'queue', queue, group: 'G', batch: 1, leaseSeconds: 1 });
    assert.deepEqual(claim.txns, ['m1']);
    const left = await s.client.query<{ ms: number }>(
      `SELECT (extract(epoch FROM c.lease_expires_at - clock_timestamp()) * 1000)::float8 AS ms
       FROM queen.cursors c WHERE c.lease_id = $1::uuid`, [claim.leaseId]);
    await s.client.query('COMMIT');
    // From the transaction's start, the lease would have ended 0.5 s before this read.
    assert.ok(left.rows[0]!.ms > 500, `lease left after the claim: ${left.rows[0]!.ms} ms`);
    const acked = await ack(sql.pool, [{ tx: 'm1', partitionId: pushed!.partition_id, group: 'G', leaseId: claim.leaseId }]);
    assert.deepEqual(acked.map((r) => [r.success, r.error]), [[true, null]]);
  });
});
