/**
 * Pop (docs/api.md 5, the seed document): attempts, long polling and the minPopWaitTime hold.
 *
 * One attempt is one call of the pop function: a short transaction that claims and returns. Between attempts
 * a waiting pop holds no connection: it parks in the waiting room (pop-waiting.ts), where the pops of one
 * wait key share one re-check loop, woken by a matching commit or its backoff interval (100, 100, 100, 200,
 * 400, 800, 1000, ... ms with the defaults). A pop holding for a fuller batch (minPopWaitTime) waits on its
 * own, within its hold. Re-attempts run with bounded concurrency so that wakes cannot take the whole pool.
 */
import { uuidv7 } from '../ids.js';
import type { OperationSpan } from '../tracing.js';
import type { ClaimOutcome, ClaimParams, ClaimedMessage, PopSelection } from '../store/cursors.js';
import { QUEUE_MODE, effectiveGroup } from './names.js';
import type { Store } from '../store/index.js';
import { openingClaim, type SealedQueues } from './pop-payloads.js';
import type { PayloadReader } from './payload-cipher.js';
import { WaitingRoom } from './pop-waiting.js';
import { Semaphore } from './semaphore.js';
import { parseTimestamp } from './timestamps.js';
import type { WakeBus, WakeTarget } from './wake-bus.js';

export type { ClaimedMessage } from '../store/cursors.js';

/**
 * A validated pop request: the selection the pop function receives (store/cursors.ts `PopSelection`) with
 * the group as the client sent it, plus the long-poll fields. Core applies the group default (as for acks).
 */
export interface PopRequest extends Omit<PopSelection, 'group'> {
  /** The consumerGroup parameter; null or empty means queue mode. */
  consumerGroup: string | null;
  wait: boolean;
  timeoutMs: number;
  subscriptionMode: string | null;
  subscriptionFrom: string | null;
  /** When the request arrived (ms since the epoch): the long-poll deadline counts from here. */
  arrivedAt: number;
}

/** Why a pop delivered nothing (the X-Queen-Empty-Reason header). */
export type EmptyReason = 'none' | 'leased' | 'no_partition' | 'window_buffer' | 'delayed' | 'retry_delay' | 'timeout' | 'paused' | 'error' | 'shutdown';

/** The result of a pop request. */
export type PopResult =
  | { kind: 'messages'; leaseId: string; group: string; messages: ClaimedMessage[] }
  | { kind: 'empty'; reason: EmptyReason };

/** Long-poll tuning (docs/api.md 10). */
export interface PollSettings {
  waitInitialIntervalMs: number;
  waitBackoffThreshold: number;
  waitBackoffMultiplier: number;
  waitMaxIntervalMs: number;
  defaultSubscriptionMode: 'all' | 'new';
}

/** A named group's seeding intent (docs/api.md 5.7 rule 3); null means `all`. */
export function subscriptionIntent(
  group: string,
  mode: string | null,
  from: string | null,
  defaultMode: 'all' | 'new',
): { mode: 'new' | 'timestamp'; from: string | null } | null {
  if (group === QUEUE_MODE) return null;
  if (from !== null) {
    if (from.toLowerCase() === 'now') return { mode: 'new', from: null };
    const parsed = parseTimestamp(from);
    if (parsed !== null) return { mode: 'timestamp', from: parsed };
  }
  const effective = mode ?? defaultMode;
  return effective === 'new' || effective === 'new-only' ? { mode: 'new', from: null } : null;
}

const ROTATION_LIMIT = 10_000;

/** The store as pop uses it. */
export type PopStore = Pick<Store, 'cursorClaim' | 'leaseRelease' | 'transaction' | 'cursorsReady'>;

/** What the pop service is built from. */
export interface PopServiceOptions {
  /** The statements of an attempt, of a checked attempt's transaction, of lease release and of readiness checks. */
  store: PopStore;
  /** Which queues may hold sealed payloads (their claims are opened inside a transaction). */
  sealed: SealedQueues;
  /** Opens sealed payloads of a claimed batch before it is returned. */
  payloads: PayloadReader;
  bus: WakeBus;
  settings: PollSettings;
  /** Re-attempts (after a wake or a tick) running at once, at most. */
  maxConcurrentReattempts: number;
  /** A procedure error ended a pop with 204 `error`: logged and counted. */
  onProcedureError: (error: unknown) => void;
  isProcedureError: (error: unknown) => boolean;
  /** True while pop maintenance is on: every pop, parked ones included, answers `paused` (docs/api.md 9.4 rule 4). */
  paused?: () => boolean;
}

/** Runs pop requests against the store, parking the waiting ones on the wake bus. */
export class PopService {
  private readonly reattempts: Semaphore;
  /** Where the next wildcard/discovery walk starts, per (scope, group): the last partition claimed. */
  private readonly rotation = new Map<string, string>();
  private closing = false;
  /** The shared re-check loops of parked pops, one per wait key. */
  private readonly waiting: WaitingRoom;

  private readonly claim: (params: ClaimParams) => Promise<ClaimOutcome>;
  private readonly store: PopStore;
  private readonly bus: WakeBus;
  private readonly settings: PollSettings;
  private readonly onProcedureError: (error: unknown) => void;
  private readonly isProcedureError: (error: unknown) => boolean;
  private readonly paused: () => boolean;

  constructor(options: PopServiceOptions) {
    this.store = options.store;
    this.claim = openingClaim(options.payloads, options.store, options.sealed);
    this.bus = options.bus;
    this.settings = options.settings;
    this.onProcedureError = options.onProcedureError;
    this.isProcedureError = options.isProcedureError;
    this.paused = options.paused ?? (() => false);
    this.reattempts = new Semaphore(options.maxConcurrentReattempts);
    this.waiting = new WaitingRoom(this.bus, this.settings, options.store, () => (this.closing ? 'shutdown' : this.paused() ? 'paused' : null));
  }

  /** Answers parked pops with `shutdown` and refuses to park new ones. */
  shutdown(): void {
    this.closing = true;
    this.bus.wakeAll();
  }

  /**
   * Serves one pop request. `signal` aborts when the client goes away: a batch claimed for a client that
   * left is handed back at once (its leases released) rather than left to expire, and the answer is empty.
   * With a span, every attempt is a database child of it.
   */
  async pop(request: PopRequest, signal: AbortSignal, span: OperationSpan | null = null): Promise<PopResult> {
    const result = await this.attempts(request, signal, span);
    if (result.kind === 'messages' && signal.aborted) {
      if (result.leaseId !== '') await this.store.leaseRelease({ leaseId: result.leaseId, origin: '' }).catch(() => undefined);
      return { kind: 'empty', reason: 'none' };
    }
    return result;
  }

  /** The attempt loop of one pop request. */
  private async attempts(request: PopRequest, signal: AbortSignal, span: OperationSpan | null): Promise<PopResult> {
    if (this.paused()) return { kind: 'empty', reason: 'paused' };
    const group = effectiveGroup(request.consumerGroup);
    const leaseId = uuidv7();
    const deadline = request.arrivedAt + (request.wait ? request.timeoutMs : 0);
    const rotationKey = `${request.scope}\u0000${request.queue ?? ''}\u0000${request.namespace ?? ''}\u0000${request.task ?? ''}\u0000${group}`;
    const waitKey = `${rotationKey}\u0000${request.partition ?? ''}`;
    const intent = subscriptionIntent(group, request.subscriptionMode, request.subscriptionFrom, this.settings.defaultSubscriptionMode);
    const holdEligible = request.scope === 'queue' && request.wait && request.batch > 1;
    let holdUntil: number | null = null;
    // One attempt; the request is the selection (its long-poll fields ride along unread), the attempt adds the rest.
    const attempt = (firstAttempt: boolean): Promise<ClaimOutcome> => {
      const holding = holdEligible && (holdUntil === null || Date.now() < holdUntil);
      const params: ClaimParams = {
        ...request,
        group,
        leaseId,
        subscribeMode: intent?.mode ?? null,
        subscribeFrom: intent?.from ?? null,
        firstAttempt,
        rotateAfter: this.rotation.get(rotationKey) ?? null,
        holdUnder: holding ? request.batch : 0,
      };
      return span === null ? this.claim(params) : span.database('queen.pop_messages', () => this.claim(params));
    };
    const reattempt = (urgent = true, onQueued?: (promote: () => boolean) => void): Promise<ClaimOutcome> =>
      this.reattempts.run(() => attempt(false), urgent, onQueued);
    const target: WakeTarget =
      request.scope === 'discovery'
        ? { kind: 'discovery', namespace: request.namespace, task: request.task }
        : { kind: 'queue', queue: request.queue! };
    const readyKey = request.scope === 'discovery' ? null : { queue: request.queue!, partition: request.scope === 'partition' ? request.partition : null, group };
    let waits = 0;
    let interval = this.settings.waitInitialIntervalMs;

    try {
      let outcome = await attempt(true);
      for (;;) {
        if (outcome.kind === 'messages') {
          this.remember(rotationKey, outcome.messages[outcome.messages.length - 1]!.partitionId);
          return { kind: 'messages', leaseId: request.autoAck ? '' : leaseId, group, messages: outcome.messages };
        }
        if (outcome.kind === 'hold') {
          holdUntil ??= Date.now() + outcome.holdMs;
        } else if (!request.wait) {
          return { kind: 'empty', reason: outcome.reason as EmptyReason };
        }

        const now = Date.now();
        if (this.closing) return { kind: 'empty', reason: 'shutdown' };
        if (this.paused()) return { kind: 'empty', reason: 'paused' };
        if (now >= deadline) {
          if (outcome.kind === 'hold') {
            holdUntil = now; // the deadline ends the hold: claim what is there
            outcome = await reattempt();
            continue;
          }
          return { kind: 'empty', reason: 'timeout' };
        }
        if (holdUntil === null) {
          // Nothing there: park with the other pops of this key, which share one re-check loop.
          const end = await this.waiting.wait(waitKey, { target, readyKey, attempt: reattempt, deadline, signal });
          if (end.kind === 'error') throw end.error;
          if (end.kind !== 'outcome') return { kind: 'empty', reason: end.kind === 'aborted' ? 'none' : end.kind };
          outcome = end.outcome;
          continue;
        }
        // Holding for a fuller batch (minPopWaitTime): a short wait of this request's own, bounded by the hold.
        waits += 1;
        if (waits > this.settings.waitBackoffThreshold) {
          interval = Math.min(interval * this.settings.waitBackoffMultiplier, this.settings.waitMaxIntervalMs);
        }
        const woken = await this.park(target, Math.min(now + interval, deadline, holdUntil) - now, signal);
        if (signal.aborted) return { kind: 'empty', reason: 'none' };
        if (this.closing) return { kind: 'empty', reason: 'shutdown' };
        if (this.paused()) return { kind: 'empty', reason: 'paused' };
        if (woken) {
          waits = 0;
          interval = this.settings.waitInitialIntervalMs;
        }
        outcome = await reattempt(woken);
      }
    } catch (error) {
      if (!this.isProcedureError(error)) throw error;
      this.onProcedureError(error);
      return { kind: 'empty', reason: 'error' };
    }
  }

  private remember(key: string, partitionId: string): void {
    if (this.rotation.size >= ROTATION_LIMIT && !this.rotation.has(key)) {
      const oldest = this.rotation.keys().next().value;
      if (oldest !== undefined) this.rotation.delete(oldest);
    }
    this.rotation.set(key, partitionId);
  }

  /** Waits for a matching wake (true), the timer, or the client going away. */
  private park(target: WakeTarget, ms: number, signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      let settled = false;
      const finish = (woken: boolean): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        unregister();
        signal.removeEventListener('abort', onAbort);
        resolve(woken);
      };
      const onAbort = (): void => finish(false);
      const timer = setTimeout(() => finish(false), Math.max(0, ms));
      const unregister = this.bus.register(target, () => finish(true));
      signal.addEventListener('abort', onAbort);
      if (signal.aborted) finish(false);
    });
  }
}
