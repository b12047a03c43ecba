/**
 * A worker that is down (docs/scale-out.md section 7), on a coordinator with two workers: one worker stopped with
 * pg_ctl while a broker with QUEEN_CITUS=on serves. A push over partitions of both workers answers `queued` for
 * the live worker's partitions and `buffered` for the stopped one's; later pushes to the live worker's partitions
 * keep committing (they are not held behind the buffer) and its pops serve (wildcard and discovery pops and the
 * SQL API's consume too, from its partitions only), while the stopped worker's pops answer 503 with Retry-After.
 * Started again, the buffer replays: every message is stored exactly once, in push order per partition, and
 * pushes go straight to the database again.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { citusDatabase, useCitusCluster } from '../support/citus.js';
import { client, startBroker, type BrokerProcess, type Client } from '../support/harness.js';

const cluster = useCitusCluster(2);
const QUEUE = 'split';
const PARTITIONS = Array.from({ length: 8 }, (_, i) => `p${i}`);

describe('a worker that is down holds only its partitions', () => {
  let dataDir = '';
  let broker: BrokerProcess;
  let api: Client;
  /** Per partition, the transactionIds pushed, in push order. */
  const pushed = new Map<string, string[]>(PARTITIONS.map((p) => [p, []]));
  let sequence = 0;
  const items = (partitions: string[], perPartition = 2) => partitions.flatMap((partition) =>
    Array.from({ length: perPartition }, () => {
      const transactionId = `${partition}-${String(++sequence).padStart(4, '0')}`;
      pushed.get(partition)!.push(transactionId);
      return { queue: QUEUE, partition, transactionId, payload: { partition, sequence } };
    }));
  const statuses = async (list: ReturnType<typeof items>): Promise<Map<string, string[]>> => {
    const res = await api.push(list);
    assert.equal(res.status, 201, res.text);
    const by = new Map<string, string[]>();
    res.json.forEach((r: any, i: number) => by.set(list[i]!.partition, [...(by.get(list[i]!.partition) ?? []), r.status]));
    return by;
  };
  const pop = (partition: string, query: string) => api.get(`/api/v1/pop/queue/${QUEUE}/partition/${partition}?wait=false${query}`);

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-citus-down-'));
    broker = await startBroker(citusDatabase(cluster), { QUEEN_CITUS: 'on', QUEEN_DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    api = client(broker.url);
  }, { timeout: 120_000 });
  after(async () => {
    await broker?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('pushes to the live worker commit, to the stopped one are buffered; replayed once, in order, when it is back', { timeout: 120_000 }, async () => {
    // The queue and its partitions exist first (creating a queue writes a reference table: every node).
    for (const statusesOf of (await statuses(items(PARTITIONS, 1))).values()) assert.deepEqual(statusesOf, ['queued']);
    const placed = await cluster.pool.query<{ name: string; port: number }>(
      `SELECT k.name, n.nodeport AS port FROM unnest($1::text[]) AS k (name)
       JOIN pg_dist_placement pl ON pl.shardid = get_shard_id_for_distribution_column('queen.partitions', queen.partition_uuid($2, k.name))
       JOIN pg_dist_node n ON n.groupid = pl.groupid`, [PARTITIONS, QUEUE]);
    const [downPort, upPort] = cluster.workerPorts;
    const downs = placed.rows.filter((r) => r.port === downPort).map((r) => r.name);
    const ups = placed.rows.filter((r) => r.port === upPort).map((r) => r.name);
    assert.ok(downs.length > 0 && ups.length > 0, `partitions on both workers: ${JSON.stringify(placed.rows)}`);

    const capped = await api.post('/api/v1/configure', { queue: 'capped', options: { maxSize: 1000 } });
    assert.equal(capped.status, 200, capped.text);
    cluster.worker(downPort!, 'stop');
    try {
      // A capped queue's room is a read of every shard: while a worker is down its pushes are buffered.
      const cappedPush = await api.push([{ queue: 'capped', partition: ups[0]!, transactionId: 'capped-1', payload: {} }]);
      assert.deepEqual(cappedPush.json.map((r: any) => r.status), ['buffered'], cappedPush.text);
      const mixed = await statuses(items([...PARTITIONS].sort(), 3));
      for (const p of ups) assert.deepEqual(mixed.get(p), ['queued', 'queued', 'queued'], `${p} on the live worker`);
      for (const p of downs) assert.deepEqual(mixed.get(p), ['buffered', 'buffered', 'buffered'], `${p} on the stopped worker`);

      // The live worker's partitions are not held behind the buffer; the stopped one's stay buffered, in order.
      for (let round = 0; round < 3; round++) {
        const again = await statuses(items(PARTITIONS, 1));
        for (const p of ups) assert.deepEqual(again.get(p), ['queued'], `${p}, round ${round}`);
        for (const p of downs) assert.deepEqual(again.get(p), ['buffered'], `${p}, round ${round}`);
      }
      const state = await api.get('/api/v1/system/maintenance');
      assert.equal(state.json.bufferStats.dbHealthy, true, 'the database is not marked down for one worker');

      const served = await pop(ups[0]!, '&batch=100&consumerGroup=live');
      assert.equal(served.status, 200, served.text);
      assert.deepEqual(served.json.messages.map((m: any) => m.transactionId), pushed.get(ups[0]!), 'the live worker serves its partitions');
      const acked = await api.post('/api/v1/ack/batch', { acknowledgments: served.json.messages.map((m: any) =>
        ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, status: 'completed', consumerGroup: 'live' })) });
      assert.ok(acked.json.every((r: any) => r.success), acked.text);

      // Wildcard and discovery pops serve the live worker's partitions; the stopped one's wait for it.
      for (const [group, path] of [['wild', `/api/v1/pop/queue/${QUEUE}`], ['discovery', '/api/v1/pop']] as const) {
        const servedFrom = new Map<string, string[]>();
        for (let i = 0; i < 50; i++) {
          const res = await api.get(`${path}?wait=false&batch=100&consumerGroup=${group}&autoAck=true${group === 'discovery' ? `&namespace=${QUEUE}` : ''}`);
          if (res.status === 204) break;
          assert.equal(res.status, 200, `${group}: ${res.text}`);
          for (const m of res.json.messages) {
            const partition = m.data.partition as string;
            servedFrom.set(partition, [...(servedFrom.get(partition) ?? []), m.transactionId]);
          }
        }
        assert.deepEqual([...servedFrom.keys()].sort(), [...ups].sort(), `${group}: every live partition served, no stopped one`);
        for (const p of ups) assert.deepEqual(servedFrom.get(p), pushed.get(p), `${group}: ${p} whole, in order`);
      }

      // The SQL API's consume walks the same candidates (the pop_messages override): the live partitions, whole.
      const viaSql: Array<{ partition: string; transactionId: string }> = [];
      for (let i = 0; i < 50; i++) {
        const { rows } = await cluster.pool.query<{ partition: string; transactionId: string }>(
          `SELECT payload ->> 'partition' AS partition, transaction_id AS "transactionId"
           FROM queen.consume_one($1, 'sqlapi', 1000, NULL, 0, true)`, [QUEUE]);
        if (rows.length === 0) break;
        viaSql.push(...rows);
      }
      assert.deepEqual(viaSql.map((r) => r.partition).filter((p) => !ups.includes(p)), [], 'sql: no stopped partition');
      for (const p of ups) assert.deepEqual(viaSql.filter((r) => r.partition === p).map((r) => r.transactionId), pushed.get(p), `sql: ${p} whole, in order`);

      const refused = await pop(downs[0]!, '&batch=100&consumerGroup=live');
      assert.equal(refused.status, 503, refused.text);
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
    } finally {
      cluster.worker(downPort!, 'start');
    }

    const pending = async () => (await api.get('/api/v1/system/maintenance')).json.bufferedMessages as number;
    for (let i = 0; i < 150 && (await pending()) > 0; i++) await new Promise((r) => setTimeout(r, 200));
    assert.equal(await pending(), 0, 'the buffer is replayed once the worker is back');
    const after = await statuses(items(downs, 1));
    for (const p of downs) assert.deepEqual(after.get(p), ['queued'], `${p} is written directly again`);

    const cappedPop = await api.get(`/api/v1/pop/queue/capped/partition/${ups[0]!}?wait=false`);
    assert.deepEqual(cappedPop.json?.messages.map((m: any) => m.transactionId), ['capped-1'], 'the capped queue\'s push is replayed');
    for (const partition of PARTITIONS) {
      const res = await pop(partition, '&batch=1000&consumerGroup=verify');
      assert.equal(res.status, 200, `${partition}: ${res.text}`);
      assert.deepEqual(res.json.messages.map((m: any) => m.transactionId), pushed.get(partition),
        `${partition}: every message once, in push order`);
    }
  });
});
