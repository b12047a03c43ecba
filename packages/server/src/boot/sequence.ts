/**
 * Start-up as a sequence of named steps, each of which registers how to undo what it started. A failure at
 * any step undoes everything started before it (that step's own partial work included), in reverse order,
 * and surfaces as one `StartupFailure` naming the step. A running broker stops through the same list, so
 * start-up and shutdown can never disagree on the order.
 */
import pg from 'pg';
import type { Logger } from '../logger.js';

/** Undoes one thing a step started. */
export type StopFunction = () => Promise<void> | void;

/** Registers a stop for what the step just started; stops run in reverse order of registration. */
export type Defer = (what: string, stop: StopFunction) => void;

/** An expected start-up failure whose message is the whole story (a taken port, an unreachable database). */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** A start-up step failed; `cause` is the original error, `message` one line for the operator. */
export class StartupFailure extends Error {
  override readonly name = 'StartupFailure';
  /** True when the cause is a known condition: the one-line message says everything, a stack would add noise. */
  readonly expected: boolean;

  constructor(readonly step: string, override readonly cause: unknown) {
    const expected = isExpected(cause);
    super(expected ? describeExpected(step, cause as Error) : `${step}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.expected = expected;
  }
}

/**
 * Expected causes: our own StartupError, an operating-system error (a port in use, a directory that is a
 * file, a permission), and an error PostgreSQL reported (a failed migration, a wrong password).
 */
function isExpected(cause: unknown): boolean {
  if (cause instanceof StartupError || cause instanceof pg.DatabaseError) return true;
  return cause instanceof Error && typeof (cause as NodeJS.ErrnoException).syscall === 'string';
}

function describeExpected(step: string, cause: Error): string {
  return cause instanceof StartupError ? cause.message : `${step}: ${cause.message}`;
}

/** The steps started so far and their stops. */
export class StartupSequence {
  private readonly stops: Array<{ what: string; stop: StopFunction }> = [];
  private stopping: Promise<void> | null = null;

  constructor(private readonly log: Logger, private readonly signal?: AbortSignal) {}

  /**
   * Runs one step. On failure, undoes every step started so far and throws a StartupFailure. An abort
   * (SIGTERM during start-up) is noticed between steps.
   */
  async step<T>(name: string, start: (defer: Defer) => Promise<T> | T): Promise<T> {
    try {
      if (this.signal?.aborted === true) throw new StartupError(`start-up interrupted by ${String(this.signal.reason ?? 'a signal')}`);
      this.log.debug({ step: name }, 'start-up step');
      return await start((what, stop) => this.stops.push({ what: `${name}: ${what}`, stop }));
    } catch (error) {
      const failure = error instanceof StartupFailure ? error : new StartupFailure(name, error);
      this.log.debug({ err: error, step: name }, 'start-up step failed; undoing the steps before it');
      await this.unwind();
      throw failure;
    }
  }

  /** Runs every registered stop in reverse order; a stop that fails is logged and the rest still run. */
  unwind(): Promise<void> {
    this.stopping ??= (async () => {
      for (let entry = this.stops.pop(); entry !== undefined; entry = this.stops.pop()) {
        try {
          await entry.stop();
        } catch (error) {
          this.log.warn({ err: error, stop: entry.what }, 'a stop step failed');
        }
      }
    })();
    return this.stopping;
  }
}
