/**
 * The no-loss checker: a pure, in-memory judge of what a load run pushed and what its consumers received.
 *
 * Design: recording is append-only and cheap (one Map insert per accepted push, one array entry per delivery),
 * because a delivery can be recorded before its push: a consumer may receive a message before the producer
 * has read the 201 that accepted it. All judging happens in `verdict()`, which replays the delivery log of
 * each consumer group in recorded order.
 *
 * Order model: the only order a client knows for certain is each producer's own order within a partition
 * (a producer sends push N+1 only after push N was answered, and items of one batch are in array order).
 * "Skipped" and "reordered" are therefore judged per (group, partition, producer) on the producer's sequence
 * numbers; messages of different producers in one partition are never compared with each other.
 *
 * Delivery order: with several consumers, the order in which responses reach the client is not the order
 * in which the broker served them (consumer B's pop may be answered while A's earlier answer is still on
 * the wire). So a delivery may carry its pop: an id shared by the deliveries of one response, and the
 * monotonic times the request was sent and the response received. A message counts as reordered when a
 * later message of its stream came earlier in the same response, or in a response received before this
 * message's request was even sent; concurrent responses are not compared. Deliveries without pop
 * information are each their own instantaneous pop, in recording order.
 */

/** One message the broker accepted with a 2xx (status queued or buffered). */
export interface PushRecord {
  /** The client-chosen transaction id, unique within a run. */
  transactionId: string;
  /** The partition name the message was pushed to. */
  partition: string;
  /** Which producer pushed it (any stable label). */
  producer: string;
  /** The producer's sequence number: strictly increasing in the order the producer sent its messages. */
  seq: number;
}

/** One message handed to a consumer. */
export interface DeliveryRecord {
  /** The consumer group it was delivered to (any label, e.g. "__QUEUE_MODE__" for queue mode). */
  group: string;
  /** The partition name the delivery reported. */
  partition: string;
  /** The message's transaction id. */
  transactionId: string;
  /** Whether the delivery was acknowledged as completed (true for autoAck pops, else the ack result). */
  acked: boolean;
  /** The pop response that carried it (see the module note); omit to use the recording order. */
  pop?: PopInfo;
}

/** Identifies one pop response and when it was requested and received (monotonic ms, e.g. performance.now()). */
export interface PopInfo {
  /** Shared by every delivery of the same response, unique per response. */
  id: number;
  requestedAt: number;
  receivedAt: number;
}

/** The checker's judgement. Counts over several groups are summed per group. */
export interface Verdict {
  /** Distinct messages pushed with a 2xx. */
  pushed: number;
  /** Distinct (group, message) pairs delivered, pushed messages only. */
  delivered: number;
  /** (group, message) pairs pushed but never delivered to that group. */
  lost: number;
  /** (group, message) pairs delivered to that group more than once (allowed: at-least-once). */
  duplicates: number;
  /**
   * (group, message) pairs never delivered-and-acked while a later message of the same producer in the same
   * partition was delivered and acked to that group: the group's cursor moved past them. A skipped message
   * that was never delivered is counted in `lost` as well.
   */
  skipped: number;
  /**
   * First deliveries of a message provably served after a later message of the same producer and partition
   * to the same group (earlier in the same response, or in a response received before this one was requested).
   */
  reordered: number;
  /** Distinct (group, transactionId) deliveries of messages never recorded as pushed (informational). */
  unknown: number;
  /** lost == 0 && skipped == 0 && reordered == 0. */
  ok: boolean;
  /** Up to five "group/transactionId" examples of each problem, for diagnosis. */
  examples: { lost: string[]; duplicates: string[]; skipped: string[]; reordered: string[]; unknown: string[] };
}

const EXAMPLE_LIMIT = 5;

interface Seen {
  count: number;
  acked: boolean;
}

interface FirstDelivery {
  transactionId: string;
  seq: number;
  pop: PopInfo;
}

/** Collects pushes and deliveries and judges them; see the module note for the order model. */
export class Checker {
  private readonly pushes = new Map<string, PushRecord>();
  private readonly deliveries: DeliveryRecord[] = [];

  /** Records a message the broker accepted. A second record for the same transaction id is ignored. */
  recordPush(record: PushRecord): void {
    if (!this.pushes.has(record.transactionId)) this.pushes.set(record.transactionId, record);
  }

  /**
   * Records one delivery, in the order the client received it, and returns its handle for `recordAck`.
   * (Record on receipt, before acking, so the delivery order is the receipt order.)
   */
  recordDelivery(record: DeliveryRecord): number {
    this.deliveries.push({ ...record });
    return this.deliveries.length - 1;
  }

  /** Marks a recorded delivery as acknowledged (completed). Unknown handles are ignored. */
  recordAck(handle: number): void {
    const delivery = this.deliveries[handle];
    if (delivery !== undefined) delivery.acked = true;
  }

  /** The number of distinct messages recorded as pushed so far. */
  get pushedCount(): number {
    return this.pushes.size;
  }

  /** The transaction ids recorded as pushed so far. */
  pushedIds(): IterableIterator<string> {
    return this.pushes.keys();
  }

  /** Whether a transaction id was recorded as pushed. */
  wasPushed(transactionId: string): boolean {
    return this.pushes.has(transactionId);
  }

  /**
   * Judges the log. `groups` lists the consumer groups every message must reach; by default, every group
   * that received anything (or a single anonymous group when nothing was delivered, so all is lost).
   */
  verdict(groups?: readonly string[]): Verdict {
    const byGroup = new Map<string, DeliveryRecord[]>();
    for (const group of groups ?? []) byGroup.set(group, []);
    for (const delivery of this.deliveries) {
      let list = byGroup.get(delivery.group);
      if (list === undefined) {
        if (groups !== undefined) continue;
        list = [];
        byGroup.set(delivery.group, list);
      }
      list.push(delivery);
    }
    if (byGroup.size === 0) byGroup.set('', []);

    const verdict: Verdict = {
      pushed: this.pushes.size, delivered: 0, lost: 0, duplicates: 0, skipped: 0, reordered: 0, unknown: 0, ok: true,
      examples: { lost: [], duplicates: [], skipped: [], reordered: [], unknown: [] },
    };
    for (const [group, log] of byGroup) this.judgeGroup(group, log, verdict);
    verdict.ok = verdict.lost === 0 && verdict.skipped === 0 && verdict.reordered === 0;
    return verdict;
  }

  private judgeGroup(group: string, log: readonly DeliveryRecord[], verdict: Verdict): void {
    const example = (kind: keyof Verdict['examples'], id: string): void => {
      const list = verdict.examples[kind];
      if (list.length < EXAMPLE_LIMIT) list.push(`${group}/${id}`);
    };
    const seen = new Map<string, Seen>();
    const streams = new Map<string, FirstDelivery[]>();
    log.forEach((delivery, index) => {
      let entry = seen.get(delivery.transactionId);
      if (entry === undefined) {
        entry = { count: 0, acked: false };
        seen.set(delivery.transactionId, entry);
        const push = this.pushes.get(delivery.transactionId);
        if (push === undefined) {
          verdict.unknown++;
          example('unknown', delivery.transactionId);
        } else {
          const key = streamKey(push);
          let stream = streams.get(key);
          if (stream === undefined) streams.set(key, (stream = []));
          const pop = delivery.pop ?? { id: -1 - index, requestedAt: index, receivedAt: index };
          stream.push({ transactionId: push.transactionId, seq: push.seq, pop });
        }
      }
      entry.count++;
      if (entry.count === 2) {
        verdict.duplicates++;
        example('duplicates', delivery.transactionId);
      }
      if (delivery.acked) entry.acked = true;
    });
    for (const stream of streams.values()) {
      for (const id of reorderedIn(stream)) {
        verdict.reordered++;
        example('reordered', id);
      }
    }

    const highestAckedSeq = new Map<string, number>();
    for (const [id, entry] of seen) {
      const push = this.pushes.get(id);
      if (push === undefined || !entry.acked) continue;
      const key = streamKey(push);
      if (push.seq > (highestAckedSeq.get(key) ?? -Infinity)) highestAckedSeq.set(key, push.seq);
    }
    for (const push of this.pushes.values()) {
      const entry = seen.get(push.transactionId);
      if (entry === undefined) {
        verdict.lost++;
        example('lost', push.transactionId);
      } else {
        verdict.delivered++;
      }
      if ((entry === undefined || !entry.acked) && push.seq < (highestAckedSeq.get(streamKey(push)) ?? -Infinity)) {
        verdict.skipped++;
        example('skipped', push.transactionId);
      }
    }
  }
}

function streamKey(push: PushRecord): string {
  return `${push.partition}\u0000${push.producer}`;
}

/** The ids of a stream's first deliveries (in delivery order) that were provably served out of seq order. */
function reorderedIn(stream: readonly FirstDelivery[]): Set<string> {
  const reordered = new Set<string>();
  // Within one response: a lower seq after a higher one.
  const highestInPop = new Map<number, number>();
  for (const d of stream) {
    const highest = highestInPop.get(d.pop.id);
    if (highest !== undefined && d.seq < highest) reordered.add(d.transactionId);
    else highestInPop.set(d.pop.id, d.seq);
  }
  // Across responses: some higher seq was received before this message's request was sent.
  const bySeqDescending = [...stream].sort((a, b) => b.seq - a.seq);
  let earliestHigherReceipt = Infinity;
  for (const d of bySeqDescending) {
    if (earliestHigherReceipt < d.pop.requestedAt) reordered.add(d.transactionId);
    earliestHigherReceipt = Math.min(earliestHigherReceipt, d.pop.receivedAt);
  }
  return reordered;
}
