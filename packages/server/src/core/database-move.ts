/**
 * Moving the deployment to another PostgreSQL (docs/api.md "Migration", docs/operations.md "Moving to another
 * PostgreSQL"): the checks behind test-connection and start, the status every broker answers from the move's
 * row, validation by row counts, reset, and the watch every broker runs.
 *
 * The watch reads the row through the broker's own pool every WATCH_MS. `switched` on the database the broker
 * uses means the deployment moved: it unseals the target's password and hands the target to `follow`, which
 * points every connection there (store/connections.ts), the way a failover is followed. A move whose driver
 * has gone silent is taken over by the first broker that claims it.
 */
import crypto from 'node:crypto';
import { DomainError } from '../errors.js';
import type { Logger } from '../logger.js';
import * as db from '../store/database-move.js';
import type { MoveRow, MoveTarget } from '../store/database-move.js';

export type { MoveTarget } from '../store/database-move.js';
import { MoveDriver, STALE_SECONDS } from './database-move-driver.js';
import { seal, unseal } from './move-seal.js';

const WATCH_MS = 250;
/** The oldest PostgreSQL a target may run (logical replication's features and the reported start-up status). */
const MIN_VERSION_NUM = 140000;

/** What the move service needs. */
export interface MoveServiceParams {
  /** The source as this broker reaches it (its configured database). */
  source: MoveTarget;
  /** The sealing key (core/move-seal.ts). */
  key: Buffer;
  serverId: string;
  log: Logger;
  /** Reads the move's row on the database the broker uses now. */
  read: () => Promise<MoveRow | null>;
  /** Deletes the row of a finished move on the database the broker uses now. */
  clear: () => Promise<void>;
  /** Points every connection of this broker at `target`. */
  follow: (target: MoveTarget) => void;
  switchTimeoutMs: number;
}

/** The status values: upstream's (`idle`, `dumping`, `restoring`, `complete`, `error`) and the online phases. */
export type MoveStatus = 'idle' | 'preparing' | 'copying' | 'catching_up' | 'switching' | 'dumping' | 'restoring' | 'complete' | 'error';

const ACTIVE = new Set(['preparing', 'copying', 'catching_up', 'switching', 'dumping', 'restoring']);

/** The refusal of a target or source that cannot take part (`unsuitable`, the reason in words). */
const unsuitable = (text: string): DomainError => new DomainError('unsuitable', text);

/** The move service of one broker. */
export class MoveService {
  private timer: NodeJS.Timeout | null = null;
  private followed: string | null = null;
  private driving: Promise<void> | null = null;

  constructor(private readonly params: MoveServiceParams) {}

  /** Connects to `target` and reports what a move there would meet. */
  async testConnection(target: MoveTarget): Promise<Record<string, unknown>> {
    let session: db.MoveSession | null = null;
    try {
      session = await db.openSession(target, 'queen-move', 5000);
      const facts = await db.serverFacts(session);
      const source = await this.sourceFacts();
      return {
        success: true, version: facts.version, versionNum: facts.versionNum, empty: facts.empty, canSubscribe: facts.subscribe,
        supported: facts.versionNum >= MIN_VERSION_NUM, sourceWalLevel: source.walLevel, online: source.walLevel === 'logical' && source.replication && facts.subscribe,
      };
    } catch (error) {
      return { success: false, error: `cannot connect to ${target.host}:${target.port}/${target.database}: ${oneLine(error)}` };
    } finally {
      await session?.end().catch(() => undefined);
    }
  }

  /** Checks both servers, records the move and starts driving it; a conflict when one is under way, unsuitable when a server cannot take part. */
  async start(target: MoveTarget, mode: 'online' | 'offline'): Promise<Record<string, unknown>> {
    const current = await this.params.read();
    if (current !== null && ACTIVE.has(current.phase)) throw new DomainError('conflict', `a migration is already under way (${current.phase}, started ${current.startedAt})`);
    let session: db.MoveSession;
    try {
      session = await db.openSession(target, 'queen-move', 5000);
    } catch (error) {
      throw unsuitable(`target ${target.host}:${target.port}/${target.database} is unreachable: ${oneLine(error)}`);
    }
    try {
      const facts = await db.serverFacts(session);
      if (facts.versionNum < MIN_VERSION_NUM) throw unsuitable(`target runs PostgreSQL ${facts.version}: 14 or newer is required`);
      if (!facts.empty) throw unsuitable('target database is not empty: it holds queues or messages; use an empty database');
      if (mode === 'online') {
        const source = await this.sourceFacts();
        if (source.walLevel !== 'logical') throw unsuitable(`source has wal_level=${source.walLevel}: an online migration needs wal_level=logical (set it and restart the source), or start with mode "offline"`);
        if (!source.replication) throw unsuitable(`source role ${this.params.source.user} may not replicate (needs REPLICATION or superuser), or start with mode "offline"`);
        if (!facts.subscribe) throw unsuitable(`target role ${target.user} may not create a subscription (needs superuser, or pg_create_subscription on PostgreSQL 16+), or start with mode "offline"`);
      }
    } finally {
      await session.end().catch(() => undefined);
    }
    const control = await db.openSession(this.params.source, 'queen-move', 5000);
    try {
      const { password, ...address } = target;
      const id = crypto.randomUUID();
      const inserted = await db.moveInsert(control, { id, mode, phase: 'preparing', target: address, sealedPassword: seal(this.params.key, password), driver: this.params.serverId });
      if (!inserted) throw new DomainError('conflict', 'a migration is already under way');
      this.drive({ id, mode, phase: 'preparing' }, target);
    } finally {
      await control.end().catch(() => undefined);
    }
    return this.status();
  }

  /** The move as the database in use records it. */
  async status(): Promise<Record<string, unknown>> {
    const row = await this.params.read();
    if (row === null || row.phase === 'cancelled') return { status: 'idle' };
    return {
      status: statusOf(row.phase), id: row.id, mode: row.mode, phase: row.phase, target: row.target, error: row.error, progress: row.progress,
      startedAt: row.startedAt, updatedAt: row.updatedAt, switchedAt: row.switchedAt,
    };
  }

  /** Row counts of every moved table on the source and the target. */
  async validate(): Promise<Record<string, unknown>> {
    const row = await this.params.read();
    if (row === null || row.phase === 'cancelled') throw new DomainError('conflict', 'no migration to validate: start one first');
    const sessions = await Promise.all([db.openSession(this.params.source, 'queen-move', 5000), db.openSession(this.targetOf(row), 'queen-move', 5000)]);
    try {
      const tables = await db.movedTables(sessions[0]);
      const [source, target] = await Promise.all([db.tableCounts(sessions[0], tables), db.tableCounts(sessions[1], tables)]);
      const rows = tables.map((table) => ({ table, source: source.get(table)!, target: target.get(table)!, match: source.get(table) === target.get(table) }));
      return { valid: rows.every((r) => r.match), tables: rows };
    } finally {
      await Promise.all(sessions.map((s) => s.end().catch(() => undefined)));
    }
  }

  /** Cancels a move before its switch, or clears a finished one; a conflict during the switch. */
  async reset(): Promise<Record<string, unknown>> {
    const row = await this.params.read();
    if (row === null) return { status: 'idle' };
    if (!ACTIVE.has(row.phase)) {
      await this.params.clear(); // a source the deployment left keeps its row: brokers still on it follow
      return { status: 'idle' };
    }
    if (row.phase === 'switching' || row.phase === 'dumping' || row.phase === 'restoring') throw new DomainError('conflict', 'the switch is under way: it finishes or rolls back by itself');
    const control = await db.openSession(this.params.source, 'queen-move', 5000);
    try {
      await db.moveUpdate(control, row.id, { phase: 'cancelled' });
      const target = await db.openSession(this.targetOf(row), 'queen-move', 5000).catch(() => null);
      await db.unsubscribe(target, control).finally(() => target?.end().catch(() => undefined));
    } finally {
      await control.end().catch(() => undefined);
    }
    return { status: 'idle' };
  }

  /** Starts the watch (every broker). */
  startWatch(): void {
    this.timer = setInterval(() => void this.watch().catch(() => undefined), WATCH_MS);
    this.timer.unref();
  }

  /** Stops the watch; a drive under way finishes on its own. */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** One look at the row: follow a finished move, take over an abandoned one. */
  async watch(): Promise<void> {
    const row = await this.params.read();
    if (row === null) return;
    if (row.phase === 'switched' && this.followed !== row.id) {
      this.followed = row.id;
      const { source } = this.params;
      if (row.target.host === source.host && row.target.port === source.port && row.target.database === source.database) return; // configured on the target already
      this.params.log.info({ move: row.id, target: `${row.target.host}:${row.target.port}` }, 'database moved: following to the target');
      this.params.follow(this.targetOf(row));
      return;
    }
    if (ACTIVE.has(row.phase) && this.driving === null && row.silentSeconds > STALE_SECONDS) {
      const control = await db.openSession(this.params.source, 'queen-move', 5000);
      try {
        if (!(await db.moveClaim(control, row.id, this.params.serverId, STALE_SECONDS))) return;
      } finally {
        await control.end().catch(() => undefined);
      }
      this.params.log.warn({ move: row.id, phase: row.phase }, 'database move: its driver went silent, taking it over');
      this.drive(row, this.targetOf(row));
    }
  }

  private drive(row: Pick<MoveRow, 'id' | 'mode' | 'phase'>, target: MoveTarget): void {
    const driver = new MoveDriver({ source: this.params.source, target, row, log: this.params.log, switchTimeoutMs: this.params.switchTimeoutMs });
    this.driving = driver.run().finally(() => {
      this.driving = null;
    });
  }

  private targetOf(row: MoveRow): MoveTarget {
    return { ...row.target, password: unseal(this.params.key, row.sealedPassword) };
  }

  private async sourceFacts(): Promise<db.ServerFacts> {
    const session = await db.openSession(this.params.source, 'queen-move', 5000);
    try {
      return await db.serverFacts(session);
    } finally {
      await session.end().catch(() => undefined);
    }
  }
}

/** The status value of a stored phase. */
function statusOf(phase: string): MoveStatus {
  if (phase === 'switched') return 'complete';
  return (ACTIVE.has(phase) || phase === 'error' ? phase : 'idle') as MoveStatus;
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}
