/**
 * The open-loop pacer: sends on a fixed schedule whatever the answers do, beside the closed-loop Pacer.
 *
 * Design: a closed-loop producer waits for its answer before it sends again, so its achieved rate is a
 * latency figure (50 producers hold 2 000 msgs/s only while a push answers within 25 ms). The open-loop
 * pacer separates the two questions. Slot i is due at start + i/rate and is sent then, without waiting for
 * earlier answers, up to `maxInFlight` requests at once (generous: a cap only so a stalled broker cannot
 * make the load generator open sockets without bound). A slot that finds the cap full waits for a free
 * place; the time from its due time to its send is its queueing delay (timer lateness included, which is
 * the load generator's own share, well under a millisecond at 2 000 msgs/s on an idle loop). Slots not sent
 * by the deadline are dropped and counted (`unsent`); the run then waits for the requests in flight.
 * Achieved rate = slots the callback reported as accepted / (last answer - start), so a broker that cannot
 * absorb the rate shows as a lower rate and a growing queueing delay, while the per-request latency the
 * callback records stays a separate figure.
 */
import { Samples } from '../stats.js';
import { now, sleep } from './common.js';

/** What one open-loop run needs. */
export interface OpenLoopOptions {
  /** Monotonic ms of slot 0 (usually now()). */
  start: number;
  durationMs: number;
  /** Slots per second. */
  rate: number;
  /** Requests in flight at most; a slot that finds them all busy waits (queueing delay). */
  maxInFlight: number;
  /** Sends slot `slot`; resolves true when it was accepted. Must not reject (count failures inside). */
  send: (slot: number) => Promise<boolean>;
}

/** What an open-loop run achieved. */
export interface OpenLoopResult {
  /** Slots sent. */
  sent: number;
  /** Slots the send callback reported accepted. */
  accepted: number;
  /** Slots due before the deadline but never sent (the cap was full until then). */
  unsent: number;
  /** Accepted slots per second over start .. last answer (at least the duration). */
  achievedPerSec: number;
  /** Due time -> send time of every sent slot (ms). */
  queueDelay: Samples;
  /** The most requests that were in flight at once. */
  maxInFlightSeen: number;
}

/** Runs the schedule; resolves when the deadline has passed and every sent request was answered. */
export async function runOpenLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const { start, durationMs, rate, maxInFlight, send } = options;
  if (!(rate > 0) || !(maxInFlight >= 1) || !(durationMs > 0)) throw new Error('open loop: rate, duration and cap must be positive');
  const end = start + durationMs;
  const total = Math.ceil((durationMs * rate) / 1000);
  const queueDelay = new Samples();
  const inFlight = new Set<Promise<void>>();
  let accepted = 0;
  let sent = 0;
  let lastAnswer = start;
  let maxInFlightSeen = 0;
  schedule: for (let slot = 0; slot < total; slot++) {
    const due = start + (slot * 1000) / rate;
    const wait = due - now();
    if (wait > 0) await sleep(wait);
    while (inFlight.size >= maxInFlight) {
      await Promise.race(inFlight);
      if (now() >= end) break schedule;
    }
    if (now() >= end && slot > 0) break;
    queueDelay.add(Math.max(0, now() - due));
    const request: Promise<void> = send(slot).then((ok) => {
      if (ok) accepted++;
      lastAnswer = now();
      inFlight.delete(request);
    });
    inFlight.add(request);
    sent++;
    maxInFlightSeen = Math.max(maxInFlightSeen, inFlight.size);
  }
  await Promise.all(inFlight);
  const elapsed = Math.max(durationMs, lastAnswer - start);
  return { sent, accepted, unsent: total - sent, achievedPerSec: (accepted * 1000) / elapsed, queueDelay, maxInFlightSeen };
}
