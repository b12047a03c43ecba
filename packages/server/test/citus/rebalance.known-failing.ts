/**
 * Growing the cluster online under the broker's load (docs/scale-out.md section 9a, issue 38 item 3): producers
 * push to 20 partitions and consumers pop (wildcard, several partitions a pop) and ack through a broker on a
 * coordinator with two workers; meanwhile a third worker is added and `citus_rebalance_start()` moves shard
 * groups onto it. Every push is acknowledged, every acknowledged message is delivered exactly once, in order
 * within its partition, and the new worker ends up holding partitions.
 *
 * Not in `npm test` yet: it fails (two runs in three on a 2-core box): during the rebalance an ack batch is
 * answered `Invalid or expired lease` for the partitions of a moving shard group (docs/scale-out.md, section 10).
 * `npm run test:citus-rebalance` runs it; it joins the suite again when that is fixed.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { citusDatabase, useCitusCluster } from '../support/citus.js';
import { client, startBroker, type BrokerProcess, type Client } from '../support/harness.js';

const cluster = useCitusCluster(2);
const QUEUE = 'growing';
const PARTITIONS = 20;
// In a describe: on Node 20 root-level before hooks do not wait for one another (the cluster's comes first).
describe('growing the cluster online', () => {
  let dataDir = '';
  let broker: BrokerProcess;
  let api: Client;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-citus-rebalance-'));
    broker = await startBroker(citusDatabase(cluster), { QUEEN_CITUS: 'on', QUEEN_DATA_DIR: dataDir });
    api = client(broker.url);
  }, { timeout: 120_000 });
  after(async () => {
    await broker?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('a worker added and shards rebalanced under load: nothing acknowledged is lost, order per partition holds', { timeout: 300_000 }, async () => {
    const pushed: string[] = [];
    const delivered: string[] = [];
    const failures: string[] = [];
    let producing = true;
    let consuming = true;

    const producer = async (): Promise<void> => {
      for (let round = 0; producing; round++) {
        const items = Array.from({ length: 10 }, (_, i) => {
          const partition = (round * 10 + i) % PARTITIONS;
          return { queue: QUEUE, partition: `g${partition}`, transactionId: `g${partition}-${String(round).padStart(6, '0')}`, payload: { round } };
        });
        const res = await api.push(items);
        if (res.status !== 201) failures.push(`push ${res.status} ${res.text}`);
        else pushed.push(...items.map((i) => i.transactionId));
      }
    };
    const consumer = async (): Promise<void> => {
      while (consuming) {
        const res = await api.get(`/api/v1/pop/queue/${QUEUE}?wait=true&timeout=500&batch=50&partitions=4`);
        if (res.status === 204) continue;
        if (res.status !== 200) { failures.push(`pop ${res.status} ${res.text}`); continue; }
        const messages = res.json.messages as Array<{ transactionId: string; partitionId: string; leaseId: string }>;
        delivered.push(...messages.map((m) => m.transactionId));
        const acked = await api.post('/api/v1/ack/batch', { acknowledgments: messages.map((m) =>
          ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, status: 'completed' })) });
        if (acked.status !== 200 || !acked.json.every((r: { success: boolean }) => r.success)) failures.push(`ack ${acked.status} ${acked.text}`);
      }
    };

    const load = [producer(), consumer(), consumer()];
    await new Promise((r) => setTimeout(r, 4000));
    const port = await cluster.addWorker();
    await cluster.pool.query('SELECT citus_rebalance_start()');
    await cluster.pool.query('SELECT citus_rebalance_wait()');
    await new Promise((r) => setTimeout(r, 2000));
    producing = false;
    await load[0];
    const deadline = Date.now() + 60_000;
    while (delivered.length < pushed.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    consuming = false;
    await Promise.all(load);

    assert.deepEqual(failures, []);
    assert.ok(pushed.length > 100, `${pushed.length} messages pushed`);
    assert.equal(new Set(delivered).size, delivered.length, 'no message delivered twice');
    assert.deepEqual([...delivered].sort(), [...pushed].sort(), 'every acknowledged push delivered');
    for (let p = 0; p < PARTITIONS; p++) {
      const mine = delivered.filter((t) => t.startsWith(`g${p}-`));
      assert.deepEqual(mine, [...mine].sort(), `order within g${p}`);
    }
    const placed = await cluster.pool.query<{ shards: number }>(
      `SELECT count(*)::int AS shards FROM pg_dist_shard s JOIN pg_dist_placement pl USING (shardid) JOIN pg_dist_node n ON n.groupid = pl.groupid
       WHERE s.logicalrelid = 'queen.partitions'::regclass AND n.nodeport = $1`, [port]);
    assert.ok(placed.rows[0]!.shards > 0, 'the new worker holds shards');
  });
});
