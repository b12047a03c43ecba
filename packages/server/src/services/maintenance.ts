/**
 * The maintenance flags as this process sees them (docs/api.md 9.4 rule 1, 9.2 rule 2).
 *
 * The flags live in `queen.system_state`. A change is applied here at once when this process makes it,
 * arrives from other processes by NOTIFY `queen_maintenance` on the wake connection, and is re-read every
 * second in case a notification was lost (the connection was down). Each state carries the version of its
 * change, and an older version never replaces a newer one (a poll that started before a change and
 * answers after its notification cannot undo it). While the database is unreachable the last known flags
 * stay in force.
 *
 * The version can go back when the database itself does (a restore, a failover to a lagging replica):
 * this process's own set() is always applied (the database just answered it), and a poll that reads a
 * lower version with different flags adopts the database's state (it is the truth now), unless another
 * state was applied while that poll was in flight.
 */
import type { Logger } from '../logger.js';
import { isConnectivityError } from '../store/database.js';
import type { Store } from '../store/index.js';
import type { MaintenanceFlags } from '../store/maintenance.js';
import { PeriodicService } from './background.js';

/** How often the flags are re-read (ms). */
const POLL_MS = 1000;

/** This process's view of the maintenance flags. */
export class MaintenanceService extends PeriodicService<MaintenanceFlags> {
  private flags: MaintenanceFlags = { push: false, pop: false, version: -1 };
  /** Counts applied states (a poll that overlapped one is not trusted to go back). */
  private changes = 0;

  constructor(
    log: Logger,
    private readonly deps: { store: Pick<Store, 'maintenanceRead' | 'maintenanceSet'>; onChange: (previous: MaintenanceFlags, next: MaintenanceFlags) => void },
  ) {
    super({ name: 'maintenance', intervalMs: POLL_MS, runAtStart: true }, log);
  }

  /** Push maintenance: pushes go to the buffer. */
  get push(): boolean {
    return this.flags.push;
  }

  /** Pop maintenance: pops answer 204 `paused`. */
  get pop(): boolean {
    return this.flags.pop;
  }

  /** Changes one flag for the whole cluster; this process applies it before the call returns. */
  async set(kind: 'push' | 'pop', enabled: boolean): Promise<MaintenanceFlags> {
    const flags = await this.deps.store.maintenanceSet({ kind, enabled });
    this.apply(flags, 'authoritative');
    return flags;
  }

  /** A `queen_maintenance` notification (payload: the new state). */
  notified(payload: string | undefined): void {
    try {
      const parsed = JSON.parse(payload ?? '') as Partial<MaintenanceFlags>;
      if (typeof parsed.push === 'boolean' && typeof parsed.pop === 'boolean' && typeof parsed.version === 'number') {
        this.apply({ push: parsed.push, pop: parsed.pop, version: parsed.version });
      }
    } catch (error) {
      this.log.warn({ err: error }, 'unreadable maintenance notification');
    }
  }

  protected async cycle(): Promise<MaintenanceFlags> {
    try {
      const changes = this.changes;
      const read = await this.deps.store.maintenanceRead();
      // A state applied while the read was in flight is newer than what the read saw: keep it.
      this.apply(read, changes === this.changes ? 'read' : 'notified');
    } catch (error) {
      if (!isConnectivityError(error)) throw error; // database down: keep the last known flags, quietly
    }
    return this.flags;
  }

  /**
   * A notification (`notified`) never goes back; a poll (`read`) goes back when the flags differ (the
   * database went back); the answer of our own set() (`authoritative`) always applies.
   */
  private apply(next: MaintenanceFlags, source: 'notified' | 'read' | 'authoritative' = 'notified'): void {
    const previous = this.flags;
    if (next.version < previous.version) {
      const differs = next.push !== previous.push || next.pop !== previous.pop;
      if (source === 'notified' || (source === 'read' && !differs)) return;
      this.log.warn({ held: previous.version, database: next.version }, 'maintenance state version went back (database restored or failed over): adopting the database state');
    }
    this.changes += 1;
    this.flags = next;
    if (next.push !== previous.push || next.pop !== previous.pop) {
      if (previous.version >= 0) this.log.info({ push: next.push, pop: next.pop }, 'maintenance flags changed');
      this.deps.onChange(previous, next);
    }
  }
}
