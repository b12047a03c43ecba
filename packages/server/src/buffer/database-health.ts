/**
 * The failover buffer's view of the database's health (docs/api.md 9.5): down from the moment a push or a replay
 * batch fails with a connectivity error (not pool exhaustion), up again when a probe (`SELECT 1`, every
 * PROBE_MS while down) answers. While down, pushes go to the buffer and replay waits; `onUp` starts it again.
 */
import type { Logger } from '../logger.js';
import type { Store } from '../store/index.js';

const PROBE_MS = 1000;

/** What the probe needs. */
export interface HealthDeps {
  /** `ping` is the probe. */
  store: Pick<Store, 'ping'>;
  log: Logger;
  /** The database answered again after being down. */
  onUp(): void;
}

/** Down/up of the database as the buffer sees it, and the probe that ends a down period. */
export class DatabaseHealth {
  private down = false;
  private timer: NodeJS.Timeout | null = null;
  private probing = false;
  private stopped = false;

  constructor(private readonly deps: HealthDeps) {}

  /** True while a push or a replay failed on a lost database and the probe has not reached it since. */
  get isDown(): boolean {
    return this.down;
  }

  /** Marks the database down (once per outage) and probes it every PROBE_MS until it answers. */
  markDown(error: unknown): void {
    if (this.down || this.stopped) return;
    this.down = true;
    this.deps.log.warn({ err: error }, 'database unreachable: pushes go to the failover buffer until it answers again');
    this.timer = setInterval(() => void this.probe(), PROBE_MS);
    this.timer.unref();
  }

  /** Stops probing. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private async probe(): Promise<void> {
    if (this.probing || this.stopped) return;
    this.probing = true;
    try {
      await this.deps.store.ping();
      if (this.timer !== null) clearInterval(this.timer);
      this.timer = null;
      this.down = false;
      this.deps.onUp();
    } catch {
      // still down: the next probe in a second
    } finally {
      this.probing = false;
    }
  }
}
