/**
 * Push/pop/ack load across brokers for the database move tests: one sequential producer per partition (each
 * partition on one broker), one consumer per broker popping the queue and acking message by message (an ack
 * that fails stops the batch: the lease expires and the rest is redelivered). Records what was acknowledged
 * on each side, the statuses and the pauses.
 */
import assert from 'node:assert/strict';
import { client } from './harness.js';

/** One partition's producer: its broker. */
export interface LoadPlan {
  queue: string;
  partitions: Array<{ name: string; broker: string }>;
  consumers: string[];
}

/** A running load. */
export function startLoad(plan: LoadPlan) {
  const pushed = new Map<string, number>(plan.partitions.map((p) => [p.name, 0]));
  const acked = new Map<string, number[]>(plan.partitions.map((p) => [p.name, []]));
  const pushStatuses: Array<{ at: number; status: string }> = [];
  const popAnswers: Array<{ at: number; status: number }> = [];
  let producing = true;
  let consuming = true;
  const producers = Promise.all(plan.partitions.map(async ({ name, broker }) => {
    const api = client(broker);
    for (let n = 1; producing; n++) {
      const res = await api.push([{ queue: plan.queue, partition: name, transactionId: `${name}-${n}`, payload: { n } }]);
      assert.equal(res.status, 201, `push ${name}-${n}: ${res.status} ${res.text}`);
      pushStatuses.push({ at: Date.now(), status: res.json[0].status });
      pushed.set(name, n);
      await new Promise((r) => setTimeout(r, 15));
    }
  }));
  const consumers = Promise.all(plan.consumers.map(async (broker) => {
    const api = client(broker);
    while (consuming) {
      const res = await api.get(`/api/v1/pop/queue/${plan.queue}?batch=20&wait=true&timeout=500`);
      popAnswers.push({ at: Date.now(), status: res.status });
      if (res.status !== 200) {
        if (res.status !== 204) await new Promise((r) => setTimeout(r, 250));
        continue;
      }
      for (const message of res.json.messages) {
        const ack = await api.post('/api/v1/ack', { transactionId: message.transactionId, partitionId: res.json.partitionId, leaseId: res.json.leaseId, status: 'completed' });
        if (ack.status !== 200 || ack.json.success === false) break;
        const [partition, n] = String(message.transactionId).split('-');
        acked.get(partition!)!.push(Number(n));
      }
    }
  }));
  return {
    pushed,
    acked,
    pushStatuses,
    popAnswers,
    /** Stops the producers (the consumers go on). */
    stopProducing: async () => {
      producing = false;
      await producers;
    },
    /** Waits until every acknowledged push was acked by a consumer, then stops them. */
    finish: async (timeoutMs: number) => {
      producing = false;
      await producers;
      const deadline = Date.now() + timeoutMs;
      while ([...pushed].some(([p, n]) => acked.get(p)!.length < n) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      consuming = false;
      await consumers;
    },
    /** The longest time between two pushes answered `queued` (the switch's pause for producers, buffered pushes inside it). */
    longestGap: (list: Array<{ at: number; ok: boolean }>) => {
      let longest = 0;
      let last: number | null = null;
      for (const item of list) {
        if (!item.ok) continue;
        if (last !== null) longest = Math.max(longest, item.at - last);
        last = item.at;
      }
      return longest;
    },
  };
}

/** Every acknowledged push acked exactly once, in order, per partition. */
export function assertNothingLost(pushed: Map<string, number>, acked: Map<string, number[]>): void {
  for (const [partition, count] of pushed) {
    assert.deepEqual(acked.get(partition), Array.from({ length: count }, (_, i) => i + 1), `partition ${partition}: ${count} pushed`);
  }
}
