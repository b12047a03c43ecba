/**
 * The heartbeat of this broker process (docs/api.md 9.2 rule 4): every 5 s (QUEEN_HEARTBEAT_INTERVAL_MS) it
 * writes its row of `queen.server_heartbeats` (identity, start time, parked pops per queue) and reads back
 * the cluster's health in the same statement. `/health` answers from that snapshot, so a health probe never
 * costs a query beyond its `SELECT 1`.
 *
 * A process is alive while its last heartbeat is younger than three intervals (15 s by default) and dead
 * after that, until a restart on the same server_id or hostname:port replaces its row. A clean shutdown
 * marks the row stopped: neither alive nor dead. Every process writes only its own row; no lock is needed.
 */
import type { WakeBus } from '../core/wake-bus.js';
import type { Logger } from '../logger.js';
import type { ProcessIdentity, ServerHealth } from '../store/heartbeats.js';
import type { Store } from '../store/index.js';
import { PeriodicService } from './background.js';
import { isConnectivityError } from '../store/database.js';

/** Heartbeats missed before a process counts as dead. */
const MISSED_BEATS_FOR_DEAD = 3;

/** Writes this process's heartbeat and keeps the latest view of the cluster's health. */
export class HeartbeatService extends PeriodicService<ServerHealth> {
  /** When this incarnation started (identifies it among restarts of the same server_id). */
  readonly startedAt = new Date().toISOString();
  private latest: ServerHealth = { serversTracked: 0, serversAlive: 0, serversDead: 0, heartbeatsReceived: 0, restartsDetected: 0 };

  constructor(
    settings: { intervalMs: number },
    log: Logger,
    private readonly deps: { store: Pick<Store, 'serverHeartbeat' | 'serverStop'>; identity: ProcessIdentity; bus: WakeBus; onDatabaseError: (error: unknown) => void },
  ) {
    super({ name: 'heartbeat', intervalMs: settings.intervalMs, runAtStart: true }, log);
  }

  /** Seconds without a heartbeat after which a process counts as dead. */
  get aliveSeconds(): number {
    return (this.config.intervalMs * MISSED_BEATS_FOR_DEAD) / 1000;
  }

  /** The cluster's health as of this process's last successful heartbeat. */
  health(): ServerHealth {
    return this.latest;
  }

  protected async cycle(): Promise<ServerHealth> {
    const { store, identity, bus } = this.deps;
    try {
      this.latest = await store.serverHeartbeat({
        ...identity,
        startedAt: this.startedAt,
        parked: bus.parked,
        parkedByQueue: Object.fromEntries(bus.parkedByQueue()),
        aliveSeconds: this.aliveSeconds,
      });
    } catch (error) {
      this.deps.onDatabaseError(error);
      throw error;
    }
    return this.latest;
  }

  protected override async onStop(): Promise<void> {
    await this.deps.store.serverStop({ serverId: this.deps.identity.serverId, startedAt: this.startedAt })
      .catch((error: unknown) => this.log[isConnectivityError(error) ? 'debug' : 'warn']({ err: error }, 'could not mark the heartbeat row stopped'));
  }
}
