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
  const acked = new Map<string, Array<{ n: number; sentAt: number }>>(plan.partitions.map((p) => [p.name, []]));
  const pushStatuses: Array<{ at: number; status: string }> = [];
  const popAnswers: Array<{ at: number; status: number }> = [];
  // Each partition's pops and acks, printed when the check fails.
  const begun = Date.now();
  const history = new Map<string, string[]>(plan.partitions.map((p) => [p.name, []]));
  const note = (partition: string, line: string) => history.get(partition)?.push(`+${Date.now() - begun}ms ${line}`);
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
  const consumers = Promise.all(plan.consumers.map(async (broker, consumer) => {
    const api = client(broker);
    while (consuming) {
      const res = await api.get(`/api/v1/pop/queue/${plan.queue}?batch=20&wait=true&timeout=500`);
      popAnswers.push({ at: Date.now(), status: res.status });
      if (res.status !== 200) {
        if (res.status !== 204) await new Promise((r) => setTimeout(r, 250));
        continue;
      }
      const ids = res.json.messages.map((message: { transactionId: string }) => message.transactionId);
      note(String(ids[0]).split('-')[0]!, `c${consumer} pop lease …${String(res.json.leaseId).slice(-8)}: ${ids[0]}..${ids.at(-1)}`);
      for (const message of res.json.messages) {
        // Recorded when the ack is sent, withdrawn if it fails: the list is then in the order the acks reached the
        // broker. Recording on the answer would race a second consumer: once this ack commits and this lease
        // expires, the other consumer can pop and ack the next message before this answer arrives.
        const [partition, n] = String(message.transactionId).split('-');
        const list = acked.get(partition!)!;
        const entry = { n: Number(n), sentAt: Date.now() };
        list.push(entry);
        const ack = await api.post('/api/v1/ack', { transactionId: message.transactionId, partitionId: res.json.partitionId, leaseId: res.json.leaseId, status: 'completed' });
        note(partition!, `c${consumer} ack ${message.transactionId} (sent +${entry.sentAt - begun}ms): ${ack.status} ${ack.text.slice(0, 80)}`);
        if (ack.status !== 200 || ack.json[0]?.success !== true) { // the answer is one result in an array
          list.splice(list.indexOf(entry), 1);
          break;
        }
      }
    }
  }));
  return {
    pushed,
    acked,
    history,
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
export function assertNothingLost(load: { pushed: Map<string, number>; acked: Map<string, Array<{ n: number }>>; history: Map<string, string[]> }): void {
  for (const [partition, count] of load.pushed) {
    const acked = load.acked.get(partition)!.map((entry) => entry.n);
    const expected = Array.from({ length: count }, (_, i) => i + 1);
    assert.deepEqual(acked, expected, `partition ${partition}: ${count} pushed; its pops and acks:\n${load.history.get(partition)!.join('\n')}`);
  }
}
