/**
 * Shared re-checks of parked pops (issue 14).
 *
 * Parked pops that wait on the same thing (one wait key: scope, queue, partition or wildcard, namespace/task,
 * group) ask the database one question at a time, not one each: every key has one re-check loop that runs a
 * claim attempt on behalf of its oldest waiter and hands results out in arrival order (FIFO). While attempts
 * deliver, the next waiter's attempt follows at once (more messages may remain); an empty answer holds for
 * every waiter of the key, and the loop backs off per key (100, 100, 100, 200, ... 1000 ms with the defaults)
 * until a wake (a commit here, or a NOTIFY from another broker, through the wake bus) or a new waiter brings
 * the next attempt forward. So N idle parked pops on one key cost one attempt per backoff interval, and a
 * push into them costs one attempt (plus one if it landed while an attempt was in flight), not N.
 *
 * A tick of the backoff (no wake since the last empty answer) does not attempt at once: the key's readiness
 * check joins the batch of every key due in the same window (readiness.ts, one statement for all of them),
 * and only a key answered ready attempts. So many idle keys cost a few statements a second, not one attempt
 * each. A wake during the check ends it: the attempt runs at once.
 *
 * Each waiter keeps its own deadline and abort signal: it leaves the loop when either fires, except while an
 * attempt runs on its behalf, whose outcome it then receives (a batch for a client that left is released by
 * the caller, so no lease is held for a request that is gone).
 */
import type { ClaimOutcome } from '../store/cursors.js';
import type { ReadinessChecks, ReadyKey } from './readiness.js';
import type { WakeBus, WakeTarget } from './wake-bus.js';

/** How a parked pop's wait ended: an attempt made on its behalf delivered (or asks to hold), or it stopped. */
export type WaitEnd =
  | { kind: 'outcome'; outcome: ClaimOutcome }
  | { kind: 'error'; error: unknown }
  | { kind: 'timeout' | 'aborted' | 'shutdown' | 'paused' };

/** One pop waiting in a key's loop. */
export interface ParkedPop {
  /** Which commits wake it (registered on the wake bus, so parked counts stay per request). */
  target: WakeTarget;
  /** What its backoff ticks check before attempting; null: they attempt (discovery pops span many queues). */
  readyKey: ReadyKey | null;
  /**
   * One claim attempt on its behalf (bounded by the caller's re-attempt semaphore); `urgent` when it follows
   * a wake or a delivery (something is likely there), not the periodic re-check, so it may go first.
   * `onQueued` receives, while a non-urgent attempt waits for a slot, the function that promotes it.
   */
  attempt: (urgent: boolean, onQueued: (promote: () => boolean) => void) => Promise<ClaimOutcome>;
  /** When its long poll times out (ms since the epoch). */
  deadline: number;
  /** Aborts when its client goes away. */
  signal: AbortSignal;
}

/** The backoff of the re-checks (API.md 10). */
export interface WaitBackoff {
  waitInitialIntervalMs: number;
  waitBackoffThreshold: number;
  waitBackoffMultiplier: number;
  waitMaxIntervalMs: number;
}

interface Waiter {
  pop: ParkedPop;
  inFlight: boolean;
  /** Set when the deadline or the abort fired during its attempt: answered after the attempt. */
  stopped: 'timeout' | 'aborted' | null;
  finish(end: WaitEnd): void;
}

/** The re-check loop of one wait key. */
interface KeyLoop {
  readonly key: string;
  /** In arrival order (a Set keeps insertion order and removes in O(1)). */
  readonly waiters: Set<Waiter>;
  running: boolean;
  /** A wake arrived while an attempt was in flight: the attempt may have missed that commit. */
  woken: boolean;
  /** The next attempt follows a wake or a delivery rather than the backoff timer. */
  urgent: boolean;
  /** While a periodic re-check waits for a slot: moves it ahead (it has not started, so it will see the commit). */
  promote: (() => boolean) | null;
  waits: number;
  interval: number;
  /** While sleeping: ends the sleep, when it would end, and its timer. */
  interrupt: (() => void) | null;
  sleepUntil: number;
  timer: NodeJS.Timeout | undefined;
}

/** The re-check loops of this process's parked pops, one per wait key. */
export class WaitingRoom {
  private readonly loops = new Map<string, KeyLoop>();

  /**
   * @param ended why every parked pop must answer now (`shutdown`, `paused`), or null; checked before each
   *   attempt (shutdown and maintenance changes wake every waiter, so the check runs at once).
   */
  constructor(
    private readonly bus: WakeBus,
    private readonly backoff: WaitBackoff,
    private readonly readiness: ReadinessChecks,
    private readonly ended: () => 'shutdown' | 'paused' | null,
  ) {}

  /** Parks a pop under its wait key until an attempt made for it delivers, or it stops. */
  wait(key: string, pop: ParkedPop): Promise<WaitEnd> {
    const loop = this.loopOf(key);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        pop,
        inFlight: false,
        stopped: null,
        finish: (end) => {
          clearTimeout(timer);
          unregister();
          pop.signal.removeEventListener('abort', onAbort);
          loop.waiters.delete(waiter);
          resolve(end);
        },
      };
      const stop = (why: 'timeout' | 'aborted'): void => {
        if (waiter.inFlight) waiter.stopped ??= why;
        else if (loop.waiters.has(waiter)) waiter.finish({ kind: why });
      };
      const onAbort = (): void => stop('aborted');
      const timer = setTimeout(() => stop('timeout'), Math.max(0, pop.deadline - Date.now()));
      const unregister = this.bus.register(pop.target, () => this.wake(loop));
      loop.waiters.add(waiter);
      pop.signal.addEventListener('abort', onAbort);
      if (!pop.signal.aborted) {
        this.joined(loop);
        return;
      }
      stop('aborted');
      if (!loop.running && loop.waiters.size === 0) this.loops.delete(key); // a loop that never ran
    });
  }

  private loopOf(key: string): KeyLoop {
    let loop = this.loops.get(key);
    if (loop === undefined) {
      const interval = this.backoff.waitInitialIntervalMs;
      loop = { key, waiters: new Set(), running: false, woken: false, urgent: false, promote: null, waits: 0, interval, interrupt: null, sleepUntil: 0, timer: undefined };
      this.loops.set(key, loop);
    }
    return loop;
  }

  /**
   * A newcomer has just made its own attempt; a commit between that attempt and its joining would wait for
   * the key's (maybe long) backoff, so the next re-check comes within the initial interval. The backoff
   * itself goes on: a steady stream of newcomers costs at most one attempt per initial interval.
   */
  private joined(loop: KeyLoop): void {
    if (!loop.running) {
      void this.run(loop, true);
      return;
    }
    const soon = Date.now() + this.backoff.waitInitialIntervalMs;
    if (loop.interrupt !== null && loop.sleepUntil > soon) {
      clearTimeout(loop.timer);
      loop.sleepUntil = soon;
      loop.timer = setTimeout(loop.interrupt, this.backoff.waitInitialIntervalMs);
    }
  }

  /** A matching commit: the next attempt runs now, with the backoff restarted. */
  private wake(loop: KeyLoop): void {
    loop.waits = 0;
    loop.interval = this.backoff.waitInitialIntervalMs;
    loop.urgent = true;
    if (loop.interrupt !== null) loop.interrupt();
    else if (loop.promote !== null && loop.promote()) loop.promote = null;
    else if (loop.running) loop.woken = true;
    else void this.run(loop, false);
  }

  /** The loop: sleep, attempt for the oldest waiter, repeat while anyone waits. */
  private async run(loop: KeyLoop, sleepFirst: boolean): Promise<void> {
    loop.running = true;
    let sleep = sleepFirst;
    let checked = false;
    for (;;) {
      if (sleep) await this.sleep(loop);
      loop.woken = false;
      const head: Waiter | undefined = loop.waiters.values().next().value;
      if (head === undefined) break;
      const ended = this.ended();
      if (ended !== null) {
        for (const waiter of [...loop.waiters]) waiter.finish({ kind: ended });
        break;
      }
      const urgent = loop.urgent;
      loop.urgent = false;
      if (!urgent && !checked && head.pop.readyKey !== null) {
        const ready = await this.checkReady(loop, head.pop.readyKey);
        if (ready) checked = true; // attempt next round, for whoever is the oldest waiter by then
        else this.backOff(loop);
        sleep = !ready;
        continue;
      }
      checked = false;
      const delivered = await this.attemptFor(head, loop, urgent);
      sleep = !delivered && !loop.woken; // a delivery may leave more: the next waiter tries at once
      if (delivered) loop.urgent = true;
    }
    loop.running = false;
    if (this.loops.get(loop.key) === loop) this.loops.delete(loop.key);
  }

  /** Runs one attempt on behalf of `head`; true when it delivered (messages, or a hold to wait out alone). */
  private async attemptFor(head: Waiter, loop: KeyLoop, urgent: boolean): Promise<boolean> {
    head.inFlight = true;
    let end: WaitEnd | null;
    try {
      const outcome = await head.pop.attempt(urgent, (promote) => (loop.promote = promote));
      end = outcome.kind === 'empty' ? null : { kind: 'outcome', outcome };
    } catch (error) {
      end = { kind: 'error', error };
    }
    head.inFlight = false;
    loop.promote = null;
    if (end !== null) {
      head.finish(end);
      if (end.kind === 'outcome') {
        loop.waits = 0;
        loop.interval = this.backoff.waitInitialIntervalMs;
        return true;
      }
      return false;
    }
    if (head.stopped !== null) head.finish({ kind: head.stopped });
    this.backOff(loop);
    return false;
  }

  /** An empty answer: one more wait, and a longer interval past the threshold. */
  private backOff(loop: KeyLoop): void {
    loop.waits += 1;
    if (loop.waits > this.backoff.waitBackoffThreshold) {
      loop.interval = Math.min(loop.interval * this.backoff.waitBackoffMultiplier, this.backoff.waitMaxIntervalMs);
    }
  }

  /**
   * The key's readiness check (batched with every key due in the same window); a wake meanwhile ends it
   * with `true` (and marks the loop urgent), so the attempt it calls for runs at once.
   */
  private checkReady(loop: KeyLoop, key: ReadyKey): Promise<boolean> {
    return new Promise((resolve) => {
      let settled = false;
      const finish = (ready: boolean): void => {
        if (settled) return;
        settled = true;
        loop.interrupt = null;
        resolve(ready);
      };
      loop.interrupt = (): void => finish(true);
      loop.sleepUntil = 0; // a newcomer has nothing to bring forward: the check is running now
      void this.readiness.ready(key).then(finish);
    });
  }

  /** Sleeps the key's current backoff interval, or until a wake (or a newcomer) ends it. */
  private sleep(loop: KeyLoop): Promise<void> {
    return new Promise((resolve) => {
      loop.interrupt = (): void => {
        clearTimeout(loop.timer);
        loop.interrupt = null;
        resolve();
      };
      loop.sleepUntil = Date.now() + loop.interval;
      loop.timer = setTimeout(loop.interrupt, loop.interval);
    });
  }
}
