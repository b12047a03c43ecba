/**
 * The shape every background service shares (CONTRIBUTING.md habit 9): a config with a name and an interval,
 * `start()`/`stop()`, a ticker, and `runNow()` for callers that want a cycle at once (a route, a test).
 *
 * Cycles never overlap: ticks and `runNow()` calls queue behind the cycle in progress, so a `runNow()`
 * always gets a cycle that started after the call. The next tick is scheduled when a cycle ends, so a slow
 * cycle delays the next one instead of piling up. A failing tick is logged and the ticker carries on; a
 * failing `runNow()` hands the error to its caller. Timers are unref'd: they never keep a process alive.
 */
import type { Logger } from '../logger.js';

/** What every background service is configured with. */
export interface ServiceConfig {
  /** Appears in logs. */
  name: string;
  /** Time between the end of one cycle and the start of the next (ms). */
  intervalMs: number;
  /** Run a first cycle inside `start()` (awaited) instead of one interval later. */
  runAtStart: boolean;
}

/** A service that runs `cycle()` every `intervalMs`, one cycle at a time. */
export abstract class PeriodicService<R> {
  private timer: NodeJS.Timeout | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private running = false;

  constructor(
    protected readonly config: ServiceConfig,
    protected readonly log: Logger,
  ) {}

  /** One cycle of the service's work. */
  protected abstract cycle(): Promise<R>;

  /** Called once by `stop()` after the last cycle has ended (a final flush, a goodbye row). */
  protected async onStop(): Promise<void> {}

  /** Starts the ticker (after a first cycle when `runAtStart`; its failure is logged, not thrown). */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    if (this.config.runAtStart) await this.runNow().catch((error: unknown) => this.logFailure(error));
    this.schedule();
  }

  /** Stops the ticker, waits for the cycle in progress, then runs `onStop()`. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.queue;
    await this.onStop();
  }

  /** Runs a cycle as soon as the one in progress (if any) has ended. */
  runNow(): Promise<R> {
    const run = this.queue.then(() => this.cycle());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.runNow()
        .catch((error: unknown) => this.logFailure(error))
        .finally(() => this.schedule());
    }, this.config.intervalMs);
    this.timer.unref();
  }

  private logFailure(error: unknown): void {
    this.log.warn({ err: error, service: this.config.name }, 'background cycle failed');
  }
}
