/**
 * The official Queen JS client (../shared/compat, unchanged) against a broker on a Citus coordinator with two
 * workers (QUEEN_CITUS=on): the usage patterns of its README (push per partition, pop with manual ack, a
 * consumer group's consume loop over a wildcard queue with multi-partition pops, a transaction that acks one
 * queue and pushes to another) behave as on one PostgreSQL.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { citusDatabase, useCitusCluster } from '../support/citus.js';
import { startBroker, type BrokerProcess } from '../support/harness.js';
import { loadOfficial, type OfficialModule } from '../support/streams.js';

const cluster = useCitusCluster(2);
const PARTITIONS = Array.from({ length: 8 }, (_, i) => `t${i}`);

/** The parts of the official client these tests use (a plain JS module: shapes as its README documents them). */
interface Message { data: any; transactionId: string; partition: string; partitionId: string; leaseId?: string }
interface Builder {
  partition(name: string): Builder;
  group(name: string): Builder;
  batch(size: number): Builder;
  partitions(n: number): Builder;
  limit(n: number): Builder;
  wait(enabled: boolean): Builder;
  push(items: unknown[]): Promise<unknown>;
  pop(): Promise<Message[]>;
  /** The handler gets one message, or the batch when batch() > 1 (the client's README). */
  consume(handler: (message: Message | Message[]) => Promise<void>): Promise<unknown>;
}
interface Transaction { ack(message: Message): Transaction; queue(name: string): Transaction & { push(items: unknown[]): Transaction }; commit(): Promise<any> }
interface Queen { queue(name: string): Builder; ack(message: Message, status: boolean | string): Promise<any>; transaction(): Transaction; close(): Promise<void> }

describe('the official JS client on Citus', () => {
  let dataDir = '';
  let broker: BrokerProcess;
  let official: OfficialModule;
  let queen: Queen;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-citus-official-'));
    broker = await startBroker(citusDatabase(cluster), { QUEEN_CITUS: 'on', QUEEN_DATA_DIR: dataDir });
    official = await loadOfficial();
    queen = new official.Queen({ url: broker.url }) as unknown as Queen;
  }, { timeout: 120_000 });
  after(async () => {
    await queen?.close().catch(() => undefined);
    await broker?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('push per partition, pop one partition, manual ack', async () => {
    for (const partition of PARTITIONS) {
      await queen.queue('tasks').partition(partition).push([1, 2].map((n) => ({ transactionId: `${partition}-${n}`, data: { partition, n } })));
    }
    const messages = await queen.queue('tasks').partition('t3').batch(10).wait(false).pop();
    assert.deepEqual(messages.map((m) => m.transactionId), ['t3-1', 't3-2']);
    assert.deepEqual(messages[0]!.data, { partition: 't3', n: 1 });
    for (const message of messages) {
      const acked = await queen.ack(message, true);
      assert.notEqual(acked?.success, false, JSON.stringify(acked));
    }
    assert.deepEqual(await queen.queue('tasks').partition('t3').wait(false).pop(), []);
  });

  test("a consumer group's consume loop drains every partition of both workers, in order per partition", async () => {
    const seen: Message[] = [];
    await queen.queue('tasks').group('workers').batch(4).partitions(3).limit(16).consume(async (batch) => {
      seen.push(...[batch].flat());
    });
    assert.equal(seen.length, 16);
    assert.equal(new Set(seen.map((m) => m.transactionId)).size, 16);
    for (const partition of PARTITIONS) {
      assert.deepEqual(seen.filter((m) => m.partition === partition).map((m) => m.transactionId), [`${partition}-1`, `${partition}-2`]);
    }
    assert.deepEqual(await queen.queue('tasks').group('workers').wait(false).pop(), [], 'the group acked everything');
  });

  test('a transaction acks a message of one queue and pushes to another', async () => {
    const [message] = await queen.queue('tasks').partition('t5').batch(1).wait(false).pop();
    assert.equal(message!.transactionId, 't5-1');
    const committed = await queen.transaction().ack(message!).queue('results').push([{ transactionId: 'r-1', data: { from: 't5-1' } }]).commit();
    assert.equal(committed.success, true, JSON.stringify(committed));
    const [result] = await queen.queue('results').wait(false).pop();
    assert.deepEqual(result!.data, { from: 't5-1' });
    const next = await queen.queue('tasks').partition('t5').batch(1).wait(false).pop();
    assert.deepEqual(next.map((m) => m.transactionId), ['t5-2']);
  });
});
