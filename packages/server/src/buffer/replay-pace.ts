/**
 * How fast the failover buffer replays (docs/api.md 9.5, docs/decisions.md "Adaptive replay"): the size of the
 * next batch, and the buffer's view of a database failure.
 *
 * Replay is one batch at a time (order per partition), each batch one append transaction. The batch starts
 * at FILE_BUFFER_MAX_BATCH, doubles after a full batch committed faster than FAST_MS (up to MAX_BATCH, the
 * push group commit's limit), halves after a commit slower than SLOW_MS (not below the configured size) and
 * after a failed one (down to 1), so a database that accepts more gets more, and one that struggles gets less.
 */
import { classifyDatabaseError } from '../store/database.js';

/** How a database failure affects the buffer: the database is down, a retry may succeed, or the batch is bad. */
export type FailureKind = 'down' | 'transient' | 'failed';

/** The buffer's view of a database failure (replay retries `transient`, counts `failed` against the file). */
export function classifyFailure(error: unknown): FailureKind {
  switch (classifyDatabaseError(error)) {
    case 'down':
      return 'down';
    case 'busy':
    case 'timeout':
    case 'conflict':
    case 'passing':
      return 'transient';
    default:
      return 'failed';
  }
}

/** The largest replay batch (the push group commit's limit too). */
export const REPLAY_MAX_BATCH = 10_000;
const FAST_MS = 1000;
const SLOW_MS = 5000;

/** The adaptive size of the next replay batch. */
export class ReplayPace {
  private size: number;
  private readonly floor: number;

  constructor(configured: number) {
    this.floor = Math.min(configured, REPLAY_MAX_BATCH);
    this.size = this.floor;
  }

  /** Records to read for the next batch. */
  get batch(): number {
    return this.size;
  }

  /** A batch of `count` records committed in `elapsedMs`. */
  committed(elapsedMs: number, count: number): void {
    if (elapsedMs < FAST_MS && count >= this.size) this.size = Math.min(REPLAY_MAX_BATCH, this.size * 2);
    else if (elapsedMs > SLOW_MS) this.size = Math.max(this.floor, Math.floor(this.size / 2));
  }

  /** A batch failed (database down or a passing condition): the next one is smaller. */
  failed(): void {
    this.size = Math.max(1, Math.floor(this.size / 2));
  }
}
