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
 */
import type { ReadyKey } from '../store/cursors.js';

export type { ReadyKey } from '../store/cursors.js';

/** Answers, for each key in order, whether it may have something to claim. */
export type ReadinessQuery = (keys: readonly ReadyKey[]) => Promise<boolean[]>;

/** How long checks gather before their statement runs (ms): at most 1000 / GATHER_MS statements a second. */
const GATHER_MS = 20;
/** Keys per statement, at most. */
const MAX_KEYS = 5000;

interface PendingCheck {
  key: ReadyKey;
  resolve: (ready: boolean) => void;
}

/** Gathers readiness checks into one statement per window. */
export class ReadinessChecks {
  private pending: PendingCheck[] = [];
  private running = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly query: ReadinessQuery) {}

  /** Resolves true when `key` may have something to claim (or the check could not tell). */
  ready(key: ReadyKey): Promise<boolean> {
    return new Promise((resolve) => {
      this.pending.push({ key, resolve });
      this.schedule();
    });
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
    const batch = this.pending.splice(0, MAX_KEYS);
    let answers: boolean[] | null;
    try {
      answers = await this.query(batch.map((check) => check.key));
    } catch {
      answers = null;
    }
    for (const [i, check] of batch.entries()) check.resolve(answers === null || answers[i] === true);
    this.running = false;
    if (this.pending.length > 0) this.schedule();
  }
}
