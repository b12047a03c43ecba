/**
 * Helpers of the maintenance and failover-buffer suites: a private buffer directory, ordered producers per
 * partition, the exact `buffered` item shape, and a drain that checks exactly-once, in-order delivery.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { client } from './harness.js';

type Api = ReturnType<typeof client>;

/** A fresh buffer directory (FILE_BUFFER_DIR) for one test. */
export function bufferDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'queen-buffer-e2e-'));
}

/** Every buffer file under a directory, at any depth. */
export function bufferFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((p) => p.endsWith('.qbuf'));
}

/** Asserts one push result item is exactly the `buffered` shape of docs/api.md 4.4. */
export function assertBuffered(item: unknown, expected: { index: number; queue: string; partition: string; transactionId: string }): void {
  assert.deepEqual(item, {
    index: expected.index, transaction_id: expected.transactionId, status: 'buffered', queueName: expected.queue,
    queue: expected.queue, partition: expected.partition, transactionId: expected.transactionId,
  });
}

/**
 * Pushes `perPartition` single-item requests to each partition: one sequential producer per partition, all
 * partitions at once. Returns every response item (with the partition it went to) in send order.
 */
export async function produce(
  api: Api, queue: string, partitions: string[], perPartition: number, prefix: string,
  onItem: (item: any, partition: string, n: number) => void = () => undefined,
): Promise<void> {
  await Promise.all(partitions.map(async (partition) => {
    for (let n = 1; n <= perPartition; n++) {
      const transactionId = `${prefix}-${partition}-${n}`;
      const res = await api.push([{ queue, partition, transactionId, payload: { partition, n } }]);
      assert.equal(res.status, 201, `push ${transactionId}: ${res.status} ${res.text}`);
      assert.equal(res.json.length, 1);
      onItem(res.json[0], partition, n);
    }
  }));
}

/** The transaction ids a producer sent to one partition, in order. */
export function sent(prefix: string, partition: string, count: number, from = 1): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${partition}-${from + i}`);
}

/**
 * Pops (autoAck) every partition until `expected` holds the number of messages per partition, or fails
 * after `timeoutMs`. Returns the transaction ids delivered per partition, in delivery order; then checks
 * that nothing more is delivered (no duplicates arrived late).
 */
export async function drain(api: Api, queue: string, expected: Map<string, number>, timeoutMs = 30_000): Promise<Map<string, string[]>> {
  const got = new Map<string, string[]>([...expected.keys()].map((p) => [p, []]));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let progress = false;
    for (const [partition, want] of expected) {
      const list = got.get(partition)!;
      if (list.length >= want) continue;
      const res = await api.get(`/api/v1/pop/queue/${encodeURIComponent(queue)}/partition/${encodeURIComponent(partition)}?batch=1000&autoAck=true`);
      if (res.status === 200) {
        list.push(...res.json.messages.map((m: any) => m.transactionId as string));
        progress = true;
      } else {
        assert.equal(res.status, 204, `pop ${partition}: ${res.status} ${res.text}`);
      }
    }
    if ([...expected].every(([p, want]) => got.get(p)!.length >= want)) break;
    if (Date.now() > deadline) assert.fail(`not everything was delivered within ${timeoutMs} ms: ${JSON.stringify([...got].map(([p, l]) => [p, l.length]))}`);
    if (!progress) await new Promise((r) => setTimeout(r, 100));
  }
  for (const partition of expected.keys()) {
    const res = await api.get(`/api/v1/pop/queue/${encodeURIComponent(queue)}/partition/${encodeURIComponent(partition)}?batch=1000&autoAck=true`);
    assert.equal(res.status, 204, `nothing more on ${partition}, got ${res.status} ${res.text}`);
  }
  return got;
}
