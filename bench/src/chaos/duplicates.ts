/**
 * Explains duplicate deliveries of a chaos run (queue mode: one group).
 *
 * Design: every delivery the consumers received is an event with its pop's request and receipt times
 * (monotonic ms) and the outcome of its acknowledgement: acked (success:true, with the time the answer
 * arrived), refused (success:false with the broker's error) or never answered (the ack request kept failing,
 * e.g. its broker was killed and the retries gave up). Events are grouped per transaction id in receipt order;
 * every delivery after the first is a redelivery and gets exactly one class:
 *
 * - storedTwice: it carries a different message id than the first delivery (the same transaction id stored
 *   twice in the partition: push deduplication failed). Never expected.
 * - unexplained: an earlier delivery of it had been acked with success:true, and that answer arrived before
 *   this redelivery's pop was even sent. With a cursor that never moves backwards, this must not happen.
 * - withinLease: no earlier delivery was acked, but this one and the previous one overlap so tightly that the
 *   previous lease cannot have expired (each one was received less than the lease time after the other one
 *   was requested, and a lease starts no earlier than its pop's request). Never expected.
 * - ackRaced: an earlier delivery was acked with success:true, but that answer came after this redelivery's
 *   pop was sent, so the broker may have served the pop first. Expected when a late ack lands at or below a
 *   cursor another consumer already advanced (an idempotent success), i.e. after a lease expiry too.
 * - afterLeaseExpiry: no earlier delivery was acked (its ack was refused, e.g. "Invalid or expired lease",
 *   or never answered: its broker died and the retries gave up, or the harness did not send it on purpose,
 *   see --drop-acks); the lease ran out and the partition was claimed again.
 *
 * `explained` = ackRaced + afterLeaseExpiry; everything else is a finding.
 */

/** One delivery of a message to the (only) group. */
export interface DeliveryEvent {
  transactionId: string;
  /** The broker's message id. */
  messageId: string;
  /** Monotonic ms when the pop that carried it was sent. */
  requestedAt: number;
  /** Monotonic ms when that pop's answer arrived. */
  receivedAt: number;
  /** 'acked', 'refused' or 'unanswered'. */
  ack: AckOutcome;
  /** Monotonic ms when the ack answer arrived (NaN unless answered). */
  ackAnsweredAt: number;
  /** The broker's per-item error for a refused ack, or the last failure for an unanswered one. */
  ackError: string | null;
}

/** How a delivery's acknowledgement ended. */
export type AckOutcome = 'acked' | 'refused' | 'unanswered';

/** The classification of every redelivery. */
export interface DuplicateReport {
  /** Every delivery received. */
  deliveries: number;
  /** Messages delivered more than once. */
  duplicatedMessages: number;
  /** Deliveries after a message's first one (= the sum of the five classes). */
  redeliveries: number;
  afterLeaseExpiry: number;
  ackRaced: number;
  unexplained: number;
  withinLease: number;
  storedTwice: number;
  /** afterLeaseExpiry + ackRaced. */
  explained: number;
  /** Redeliveries after lease expiry, by what happened to the previous delivery's ack. */
  causes: Record<string, number>;
  /** Up to five transaction ids of each class that is never expected. */
  examples: { unexplained: string[]; withinLease: string[]; storedTwice: string[] };
}

const EXAMPLES = 5;

/**
 * Classifies the redeliveries of `events` (in receipt order per transaction id; any overall order is fine).
 * `leaseMs` is the queue's lease time; `toleranceMs` absorbs clock granularity in the lease check.
 */
export function classifyDuplicates(events: Iterable<DeliveryEvent>, leaseMs: number, toleranceMs = 25): DuplicateReport {
  const byId = new Map<string, DeliveryEvent[]>();
  let deliveries = 0;
  for (const event of events) {
    deliveries++;
    const list = byId.get(event.transactionId);
    if (list === undefined) byId.set(event.transactionId, [event]);
    else list.push(event);
  }
  const report: DuplicateReport = {
    deliveries, duplicatedMessages: 0, redeliveries: 0, afterLeaseExpiry: 0, ackRaced: 0, unexplained: 0, withinLease: 0,
    storedTwice: 0, explained: 0, causes: {}, examples: { unexplained: [], withinLease: [], storedTwice: [] },
  };
  const example = (kind: keyof DuplicateReport['examples'], id: string): void => {
    const list = report.examples[kind];
    if (list.length < EXAMPLES && !list.includes(id)) list.push(id);
  };
  for (const [id, list] of byId) {
    if (list.length < 2) continue;
    report.duplicatedMessages++;
    list.sort((a, b) => a.receivedAt - b.receivedAt);
    const first = list[0]!;
    for (let j = 1; j < list.length; j++) {
      const current = list[j]!;
      const previous = list[j - 1]!;
      report.redeliveries++;
      const earlier = list.slice(0, j);
      if (current.messageId !== first.messageId) {
        report.storedTwice++;
        example('storedTwice', id);
      } else if (earlier.some((e) => e.ack === 'acked' && e.ackAnsweredAt < current.requestedAt)) {
        report.unexplained++;
        example('unexplained', id);
      } else if (earlier.some((e) => e.ack === 'acked')) {
        report.ackRaced++;
      } else if (current.receivedAt < previous.requestedAt + leaseMs - toleranceMs &&
        previous.receivedAt < current.requestedAt + leaseMs - toleranceMs) {
        report.withinLease++;
        example('withinLease', id);
      } else {
        report.afterLeaseExpiry++;
        const cause = previous.ack === 'refused' ? `ack refused: ${previous.ackError ?? 'no error text'}`
          : `no ack answer${previous.ackError === null ? '' : `: ${previous.ackError}`}`;
        report.causes[cause] = (report.causes[cause] ?? 0) + 1;
      }
    }
  }
  report.explained = report.afterLeaseExpiry + report.ackRaced;
  return report;
}
