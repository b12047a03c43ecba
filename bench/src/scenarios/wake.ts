/**
 * wake: how fast a push wakes a parked long-poll, in one broker process and across two.
 *
 * Design: 50 fresh queues, one parked long-poll each (GET /api/v1/pop/queue/<q>?wait=true&timeout=30000&
 * autoAck=true). After a 1 s settle (so every pop has made its first, empty claim and is parked), each queue
 * gets exactly one push (POST /api/v1/push {"items":[{"queue":q,"payload":{"sentAt":<ms>}}]}) at a uniformly
 * random moment within the next 5 s, so the pushes arrive one by one rather than as a burst. Latency is the
 * moment the pop's response arrived minus `sentAt`, the moment just before the push request was sent (both
 * on this process's monotonic clock); a delivery is counted only when it carries this round's `sentAt` for
 * its queue. The round ends when every queue got its message; the pops are then parked again for the next
 * round, 4 rounds in all (200 samples).
 *
 * Two modes, one result (JSON line) each: `one-process` parks and pushes on the same broker; `two-process`
 * parks the pops on a second broker B on the same database and pushes to broker A, so every wake must cross
 * processes (LISTEN/NOTIFY). B is --url2, or a broker this tool starts on A's database; without --url2 when
 * --url is given, two-process is skipped with a note. Targets (printed, not enforced): p99 < 20 ms in one
 * process, < 50 ms across two. A run takes about 50 s (2 modes x 4 rounds x ~6 s), so wake is not in the
 * default scenario list.
 *
 * A pop that ends empty before its message (timeout, error) is parked again; a message still missing 30 s
 * after its push, a failed push or a pop error is counted and fails the `allDelivered` check.
 */
import type { PopMessage, QueenClient } from '../http.js';
import { Samples, round } from '../stats.js';
import {
  describeError, freshQueueName, now, sleep, wallClockMs, type ScenarioContext, type ScenarioResult,
} from './common.js';

/** Queues, hence parked pops, per round. */
const QUEUES = 50;
/** Rounds per mode: QUEUES x ROUNDS samples. */
const ROUNDS = 4;
/** Pause between sending the pops and the first possible push. */
const PARK_SETTLE_MS = 1000;
/** The pushes of a round happen at random moments within this window after the settle. */
const SPREAD_MS = 5000;
/** The pops' long-poll timeout; also how long after its push a message may take before it counts as missing. */
const POP_TIMEOUT_MS = 30_000;
/** Queue configure/delete requests in flight at once. */
const ADMIN_CONCURRENCY = 10;

/** The two modes. */
export type WakeMode = 'one-process' | 'two-process';

/** p99 targets per mode, printed next to the figures. */
export const WAKE_TARGET_P99_MS: Readonly<Record<WakeMode, number>> = { 'one-process': 20, 'two-process': 50 };

/** Counters of one mode's measurement. */
interface WakeTotals {
  latency: Samples;
  pushLatency: Samples;
  pushFailures: number;
  popErrors: number;
  /** Pops that ended without a message (e.g. timeout) and were parked again. */
  emptyPops: number;
  /** Messages received that were not the expected one for that queue and round. */
  unexpected: number;
  /** Pushed messages not delivered within POP_TIMEOUT_MS. */
  missing: number;
  lastError: string | null;
}

/** One queue within a round. */
interface Slot {
  queue: string;
  /** Wall-clock ms just before its push was sent; null until then. */
  sentAt: number | null;
  /** Aborts its parked pop when its push failed (nothing will come). */
  abort: AbortController;
}

function sentAtOf(message: PopMessage): number | null {
  const data = message.data;
  if (typeof data !== 'object' || data === null || !('sentAt' in data)) return null;
  const sentAt: unknown = data.sentAt;
  return typeof sentAt === 'number' ? sentAt : null;
}

/** Runs `task` over `items` with at most `limit` in flight; rejects with the first error after all settled. */
async function forEachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let firstError: unknown = null;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      try {
        await task(item);
      } catch (error) {
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (firstError !== null) throw firstError;
}

/** Creates QUEUES fresh queues (through `client`), runs `body`, then deletes them (best effort). */
async function withQueues<T>(ctx: ScenarioContext, prefix: string, body: (queues: string[]) => Promise<T>): Promise<T> {
  const queues = Array.from({ length: QUEUES }, (_, i) => `${prefix}-${i}`);
  const created: string[] = [];
  try {
    await forEachLimited(queues, ADMIN_CONCURRENCY, async (queue) => {
      await ctx.client.configure(queue, {});
      created.push(queue);
    });
    return await body(queues);
  } finally {
    await forEachLimited(created, ADMIN_CONCURRENCY, async (queue) => {
      try {
        const status = await ctx.client.deleteQueue(queue);
        if (status < 200 || status >= 300) ctx.log(`delete ${queue}: HTTP ${status}`);
      } catch (error) {
        ctx.log(`delete ${queue}: ${describeError(error)}`);
      }
    });
  }
}

/** Keeps a pop parked on the slot's queue until its message arrives (or is given up on); records the latency. */
async function awaitDelivery(popClient: QueenClient, slot: Slot, totals: WakeTotals): Promise<void> {
  const signal = slot.abort.signal;
  for (;;) {
    let response;
    try {
      response = await popClient.pop(slot.queue, { wait: true, timeoutMs: POP_TIMEOUT_MS, autoAck: true }, signal);
    } catch (error) {
      if (signal.aborted) return;
      totals.popErrors++;
      totals.lastError = `pop ${slot.queue}: ${describeError(error)}`;
      response = null;
    }
    const receivedAt = wallClockMs();
    if (response !== null && response.statusCode === 200) {
      for (const message of response.messages) {
        const sentAt = sentAtOf(message);
        if (slot.sentAt !== null && sentAt === slot.sentAt) {
          totals.latency.add(receivedAt - sentAt);
          return;
        }
        totals.unexpected++;
        totals.lastError = `pop ${slot.queue}: unexpected message ${JSON.stringify(message.data)}`;
      }
    } else if (response !== null && response.statusCode === 204) {
      totals.emptyPops++;
    } else if (response !== null) {
      totals.popErrors++;
      totals.lastError = `pop ${slot.queue}: HTTP ${response.statusCode}`;
    }
    if (signal.aborted) return;
    if (slot.sentAt !== null && receivedAt - slot.sentAt > POP_TIMEOUT_MS) {
      totals.missing++;
      totals.lastError = `${slot.queue}: message not delivered within ${POP_TIMEOUT_MS / 1000} s of its push`;
      return;
    }
    if (response === null || response.statusCode !== 204) await sleep(100);
  }
}

/** Sends the slot's one push; on failure, abandons its parked pop. */
async function pushOne(pushClient: QueenClient, slot: Slot, totals: WakeTotals): Promise<void> {
  const sentAt = wallClockMs();
  slot.sentAt = sentAt;
  let failure: string | null = null;
  try {
    const response = await pushClient.push([{ queue: slot.queue, payload: { sentAt } }]);
    const status = response.results[0]?.status;
    if (response.statusCode < 200 || response.statusCode >= 300) failure = `HTTP ${response.statusCode}`;
    else if (status !== 'queued' && status !== 'buffered') failure = `item ${status ?? 'missing'}: ${response.results[0]?.error ?? ''}`;
    else totals.pushLatency.add(wallClockMs() - sentAt);
  } catch (error) {
    failure = describeError(error);
  }
  if (failure !== null) {
    totals.pushFailures++;
    totals.lastError = `push ${slot.queue}: ${failure}`;
    slot.abort.abort();
  }
}

/** One round: park a pop on every queue, push once to each at random moments, wait for every delivery. */
async function runRound(queues: readonly string[], pushClient: QueenClient, popClient: QueenClient, totals: WakeTotals): Promise<void> {
  const slots: Slot[] = queues.map((queue) => ({ queue, sentAt: null, abort: new AbortController() }));
  const deliveries = slots.map((slot) => awaitDelivery(popClient, slot, totals));
  await sleep(PARK_SETTLE_MS);
  await Promise.all(slots.map(async (slot) => {
    await sleep(Math.random() * SPREAD_MS);
    await pushOne(pushClient, slot, totals);
  }));
  await Promise.all(deliveries);
}

/** Measures one mode on its own fresh queues. */
async function measure(ctx: ScenarioContext, mode: WakeMode, pushClient: QueenClient, popClient: QueenClient): Promise<ScenarioResult> {
  const prefix = freshQueueName(`wake-${mode === 'one-process' ? '1p' : '2p'}`);
  const queueLabel = `${prefix}-{0..${QUEUES - 1}}`;
  return withQueues(ctx, prefix, async (queues) => {
    const totals: WakeTotals = {
      latency: new Samples(), pushLatency: new Samples(), pushFailures: 0, popErrors: 0, emptyPops: 0, unexpected: 0,
      missing: 0, lastError: null,
    };
    const started = now();
    for (let r = 1; r <= ROUNDS; r++) {
      const before = totals.latency.count;
      await runRound(queues, pushClient, popClient, totals);
      ctx.log(`wake ${mode}: round ${r}/${ROUNDS}: ${totals.latency.count - before}/${QUEUES} delivered, ` +
        `p99 so far ${round(totals.latency.percentile(99))} ms`);
    }
    const target = WAKE_TARGET_P99_MS[mode];
    const figures = {
      samples: totals.latency.count,
      p50Ms: round(totals.latency.percentile(50)),
      p99Ms: round(totals.latency.percentile(99)),
      maxMs: round(totals.latency.max()),
      targetP99Ms: target,
      meanMs: round(totals.latency.mean()),
      pushP50Ms: round(totals.pushLatency.percentile(50)),
      pushP99Ms: round(totals.pushLatency.percentile(99)),
      queues: QUEUES,
      rounds: ROUNDS,
      missing: totals.missing,
      pushFailures: totals.pushFailures,
      popErrors: totals.popErrors,
      emptyPops: totals.emptyPops,
      unexpected: totals.unexpected,
      elapsedS: round((now() - started) / 1000),
    };
    const allDelivered = figures.samples === QUEUES * ROUNDS && totals.pushFailures === 0 && totals.popErrors === 0 &&
      totals.unexpected === 0;
    const met = Number.isFinite(figures.p99Ms) && figures.p99Ms < target;
    const where = mode === 'one-process' ? 'pops and pushes on one broker' : 'pops on broker B, pushes to broker A';
    const summary = `wake ${mode}: push-to-delivery p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms ` +
      `(target < ${target} ms: ${met ? 'met' : 'MISSED'}), max ${figures.maxMs} ms over ${figures.samples} samples ` +
      `(${QUEUES} parked pops x ${ROUNDS} rounds, ${where}); push request p50 ${figures.pushP50Ms} ms; ` +
      `${totals.missing} missing, ${totals.pushFailures} failed pushes, ${totals.popErrors} pop errors` +
      `${totals.lastError !== null ? `; last error: ${totals.lastError}` : ''}`;
    return { scenario: 'wake', mode, queue: queueLabel, figures, checks: { allDelivered }, summary };
  });
}

function skipped(mode: WakeMode, reason: string, checks?: Record<string, boolean>): ScenarioResult {
  return {
    scenario: 'wake', mode, queue: '', figures: {}, skipped: reason, ...(checks === undefined ? {} : { checks }),
    summary: `wake ${mode}: skipped (${reason})`,
  };
}

/** The wake scenario: one result for `one-process`, one for `two-process` (possibly skipped). */
export async function wakeScenario(ctx: ScenarioContext): Promise<ScenarioResult[]> {
  const results = [await measure(ctx, 'one-process', ctx.client, ctx.client)];
  let second;
  try {
    second = await ctx.secondBroker();
  } catch (error) {
    results.push(skipped('two-process', `could not start the second broker: ${describeError(error)}`, { secondBroker: false }));
    return results;
  }
  if (second.client === null) {
    ctx.log(`wake: two-process mode skipped: ${second.reason}`);
    results.push(skipped('two-process', second.reason));
  } else {
    results.push(await measure(ctx, 'two-process', ctx.client, second.client));
  }
  return results;
}
