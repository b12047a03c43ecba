/**
 * Batched readiness checks of idle parked pops (issue 14).
 *
 * A parked key whose backoff tick comes round, with no wake since its last empty attempt, most likely still
 * has nothing: instead of one pop attempt per such key (a transaction each), its check joins a batch and one
 * statement (`queen.pop_ready`) answers for every key that came due within the gathering window. Only the
 * keys it answers ready run an attempt. The statement answers a superset of what an attempt would claim,
 * and it sees every commit an attempt would see, so a key it leaves out has lost nothing: it waits for a
 * wake or its next tick, exactly as after an empty attempt.
 *
 * One batch is in flight at a time. A failed check answers every key of its batch ready: their attempts
 * then meet (and report) the failure as before.
 *
 * Checks are queued as (key, subject, token) in parallel arrays and answered through one function given at
 * construction, not a promise and a closure each: with 10 000 idle keys this runs 10 000 times a second, and
 * per-check objects that live for the gathering window survive the young generation and grow the old one.
 */
import type { ReadyKey } from '../store/cursors.js';
import type { Store } from '../store/index.js';

export type { ReadyKey } from '../store/cursors.js';

/** What the checks read: one statement answers, for each key in order, whether it may have something to claim. */
export type ReadinessStore = Pick<Store, 'cursorsReady'>;

/** Receives the answer of one check: `token` is the one given to `check`. */
export type ReadinessAnswer<S> = (subject: S, token: number, ready: boolean) => void;

/** How long checks gather before their statement runs (ms): at most 1000 / GATHER_MS statements a second. */
const GATHER_MS = 20;
/** Keys per statement, at most. */
const MAX_KEYS = 1000;

/** Gathers readiness checks into one statement per window. */
export class ReadinessChecks<S> {
  private keys: ReadyKey[] = [];
  private subjects: S[] = [];
  private tokens: number[] = [];
  private running = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: ReadinessStore,
    private readonly answer: ReadinessAnswer<S>,
  ) {}

  /** Queues a check of `key`; `answer(subject, token, ready)` follows, ready also when the check failed. */
  check(key: ReadyKey, subject: S, token: number): void {
    this.keys.push(key);
    this.subjects.push(subject);
    this.tokens.push(token);
    this.schedule();
  }

  private schedule(): void {
    if (this.running || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, GATHER_MS);
  }

  private async flush(): Promise<void> {
    this.running = true;
    const keys = this.keys.splice(0, MAX_KEYS);
    const subjects = this.subjects.splice(0, MAX_KEYS);
    const tokens = this.tokens.splice(0, MAX_KEYS);
    let answers: boolean[] | null;
    try {
      answers = await this.store.cursorsReady({ keys });
    } catch {
      answers = null;
    }
    this.running = false;
    for (let i = 0; i < subjects.length; i += 1) this.answer(subjects[i]!, tokens[i]!, answers === null || answers[i] === true);
    if (this.keys.length > 0) this.schedule();
  }
}
