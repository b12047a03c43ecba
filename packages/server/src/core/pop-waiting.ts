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
 *
 * Each key's loop is a small state machine (sleeping, checking, attempting) driven by callbacks, and every
 * sleeping loop waits on one shared timer (the sleep wheel, SLEEP_TICK_MS granularity), not on a timer, a
 * promise and closures of its own: 10 000 idle keys tick 10 000 times a second, and per-tick objects that
 * live for a backoff interval survive the young generation, so the old one grew by hundreds of megabytes
 * between major collections (issue 14, `scale-parked-10000`).
 */
import type { ClaimOutcome } from '../store/cursors.js';
import { ReadinessChecks, type ReadinessStore, type ReadyKey } from './readiness.js';
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

/** The backoff of the re-checks (docs/api.md 10). */
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

/**
 * Where a key's loop is: created (no step yet), sleeping (in the wheel until `dueSlot`), checking (its
 * readiness check number `checkSeq` is queued or in flight), attempting (an attempt runs for the oldest
 * waiter), or retired (no waiters left: removed from the room, a newcomer starts a new loop).
 */
type LoopState = 'created' | 'sleeping' | 'checking' | 'attempting' | 'retired';

/** The re-check loop of one wait key. */
interface KeyLoop {
  readonly key: string;
  /** In arrival order (a Set keeps insertion order and removes in O(1)). */
  readonly waiters: Set<Waiter>;
  state: LoopState;
  /** A wake arrived while an attempt was in flight: the attempt may have missed that commit. */
  woken: boolean;
  /** The next attempt follows a wake or a delivery rather than the backoff timer. */
  urgent: boolean;
  /** The last readiness check answered ready: the next step attempts without checking again. */
  checked: boolean;
  /** Numbers the readiness checks, so the answer of one a wake overtook is ignored. */
  checkSeq: number;
  /** While a periodic re-check waits for a slot: moves it ahead (it has not started, so it will see the commit). */
  promote: (() => boolean) | null;
  waits: number;
  interval: number;
  /** While sleeping: the wheel slot it is due in (an entry in another slot is stale). */
  dueSlot: number;
}

/** Granularity of the sleep wheel (ms): a backoff sleep ends up to this much late. */
const SLEEP_TICK_MS = 10;

/**
 * One timer for every sleeping loop: loops are filed under the tick they are due in and stepped when it
 * passes. Moving or ending a sleep leaves the old entry behind; it is skipped when its tick comes (the
 * loop's `dueSlot` no longer names it). The timer runs only while some entry is filed.
 */
class SleepWheel {
  private readonly slots = new Map<number, KeyLoop[]>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly due: (loop: KeyLoop) => void) {}

  /** Files `loop` as sleeping until `at` (ms since the epoch). */
  sleep(loop: KeyLoop, at: number): void {
    const slot = Math.ceil(at / SLEEP_TICK_MS);
    loop.state = 'sleeping';
    loop.dueSlot = slot;
    const filed = this.slots.get(slot);
    if (filed === undefined) this.slots.set(slot, [loop]);
    else filed.push(loop);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.tick(), SLEEP_TICK_MS);
      this.timer.unref(); // parked pops belong to open requests, which keep the process alive themselves
    }
  }

  /** When a sleeping loop is due (ms since the epoch). */
  dueAt(loop: KeyLoop): number {
    return loop.dueSlot * SLEEP_TICK_MS;
  }

  private tick(): void {
    const now = Math.floor(Date.now() / SLEEP_TICK_MS);
    for (const [slot, loops] of this.slots) {
      if (slot > now) continue;
      this.slots.delete(slot);
      for (const loop of loops) {
        if (loop.state === 'sleeping' && loop.dueSlot === slot) this.due(loop);
      }
    }
    if (this.slots.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}

/** The re-check loops of this process's parked pops, one per wait key. */
export class WaitingRoom {
  private readonly loops = new Map<string, KeyLoop>();
  private readonly wheel = new SleepWheel((loop) => this.step(loop));
  private readonly readiness: ReadinessChecks<KeyLoop>;

  /**
   * @param readiness answers the readiness checks of backoff ticks (one statement per batch of keys)
   * @param ended why every parked pop must answer now (`shutdown`, `paused`), or null; checked before each
   *   attempt (shutdown and maintenance changes wake every waiter, so the check runs at once).
   */
  constructor(
    private readonly bus: WakeBus,
    private readonly backoff: WaitBackoff,
    readiness: ReadinessStore,
    private readonly ended: () => 'shutdown' | 'paused' | null,
  ) {
    this.readiness = new ReadinessChecks(readiness, (loop, seq, ready) => this.answered(loop, seq, ready));
  }

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
      if (loop.state === 'created' && loop.waiters.size === 0) this.retire(loop); // a loop that never ran
    });
  }

  private loopOf(key: string): KeyLoop {
    let loop = this.loops.get(key);
    if (loop === undefined) {
      loop = {
        key, waiters: new Set(), state: 'created', woken: false, urgent: false, checked: false, checkSeq: 0,
        promote: null, waits: 0, interval: this.backoff.waitInitialIntervalMs, dueSlot: 0,
      };
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
    const soon = Date.now() + this.backoff.waitInitialIntervalMs;
    if (loop.state === 'created' || (loop.state === 'sleeping' && this.wheel.dueAt(loop) > soon)) this.wheel.sleep(loop, soon);
  }

  /** A matching commit: the next attempt runs now, with the backoff restarted. */
  private wake(loop: KeyLoop): void {
    loop.waits = 0;
    loop.interval = this.backoff.waitInitialIntervalMs;
    loop.urgent = true;
    switch (loop.state) {
      case 'sleeping':
      case 'checking': // the check's answer is ignored when it comes: the attempt runs now
      case 'created':
        this.step(loop);
        break;
      case 'attempting':
        if (loop.promote !== null && loop.promote()) loop.promote = null;
        else loop.woken = true;
        break;
      case 'retired':
        break;
    }
  }

  /** One step of the loop: check readiness, or attempt for the oldest waiter, or retire with no waiters left. */
  private step(loop: KeyLoop): void {
    loop.woken = false;
    const head: Waiter | undefined = loop.waiters.values().next().value;
    if (head === undefined) {
      this.retire(loop);
      return;
    }
    const ended = this.ended();
    if (ended !== null) {
      for (const waiter of [...loop.waiters]) waiter.finish({ kind: ended });
      this.retire(loop);
      return;
    }
    const urgent = loop.urgent;
    loop.urgent = false;
    if (!urgent && !loop.checked && head.pop.readyKey !== null) {
      loop.state = 'checking';
      loop.checkSeq += 1;
      this.readiness.check(head.pop.readyKey, loop, loop.checkSeq);
      return;
    }
    loop.checked = false;
    loop.state = 'attempting';
    void this.attemptFor(head, loop, urgent).then((delivered) => {
      if (delivered) loop.urgent = true; // a delivery may leave more: the next waiter tries at once
      if (delivered || loop.woken) this.step(loop);
      else this.wheel.sleep(loop, Date.now() + loop.interval);
    });
  }

  /** The answer of a readiness check: attempt next (for whoever is the oldest waiter by then), or sleep. */
  private answered(loop: KeyLoop, seq: number, ready: boolean): void {
    if (loop.state !== 'checking' || loop.checkSeq !== seq) return; // a wake overtook it
    if (ready) {
      loop.checked = true;
      this.step(loop);
      return;
    }
    this.backOff(loop);
    this.wheel.sleep(loop, Date.now() + loop.interval);
  }

  private retire(loop: KeyLoop): void {
    loop.state = 'retired';
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
}
