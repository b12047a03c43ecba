/**
 * Drives one database move through its phases (docs/operations.md "Moving to another PostgreSQL").
 *
 * Online: `preparing` (the broker's migrations on the target, its seeded rows emptied, publication and
 * subscription), `copying` (the subscription's initial copy), `catching_up` (the slot's lag under
 * CATCH_UP_BYTES), `switching` (fence the source, write a marker, wait until the target applied it, bring the
 * sequences over, drop the subscription), then `switched`: every broker reads that on the source and follows.
 * Offline: `preparing`, then the fence and `dumping` (every table copied through the broker), `restoring`
 * (sequences), `switched`. A switch that cannot finish within the switch timeout is rolled back: the fence is
 * cleared, the brokers replay their buffers into the source, nothing is lost, the row says why.
 *
 * The driver reports every second (the row's updated_at): a broker finding a move whose driver has been
 * silent for STALE_SECONDS takes it over (the driver's broker restarted) and resumes from the stored phase;
 * a move taken over mid-switch is rolled back, the one outcome safe without knowing how far the switch got.
 */
import crypto from 'node:crypto';
import type { Logger } from '../logger.js';
import * as db from '../store/database-move.js';
import type { MoveRow, MoveSession, MoveTarget } from '../store/database-move.js';

/** Below this lag (bytes of WAL) the switch starts. */
const CATCH_UP_BYTES = 1 << 20;
const TICK_MS = 250;
/** A driver silent this long is presumed gone. */
export const STALE_SECONDS = 10;

/** What a driver needs. */
export interface MoveDriverParams {
  /** The source as the broker reaches it (and the target's subscription too). */
  source: MoveTarget;
  target: MoveTarget;
  row: Pick<MoveRow, 'id' | 'mode' | 'phase'>;
  log: Logger;
  /** How long the switch may take before it is rolled back. */
  switchTimeoutMs: number;
}

/** Runs a move from its stored phase to `switched`, `error` or `cancelled`. */
export class MoveDriver {
  private source: MoveSession | null = null;
  private target: MoveSession | null = null;
  private phase: string;
  private readonly id: string;
  /** Set when the switch timed out: its work, still running, stops at its next step. */
  private expired = false;

  constructor(private readonly params: MoveDriverParams) {
    this.phase = params.row.phase;
    this.id = params.row.id;
  }

  /** Runs the move to its end; never throws (the row holds the outcome). */
  async run(): Promise<void> {
    try {
      await this.connect();
      if (this.phase === 'switching' || this.phase === 'dumping' || this.phase === 'restoring') {
        await this.rollBack('the broker driving the switch stopped before it finished'); // a takeover mid-switch
        return;
      }
      if (this.phase === 'preparing') await this.prepare();
      if (this.params.row.mode === 'online') {
        if (this.phase === 'copying') await this.copying();
        if (this.phase === 'catching_up') await this.catchingUp();
      }
      await this.switchOver();
    } catch (error) {
      if (error instanceof Cancelled) await this.cleanUp().catch(() => undefined);
      else await this.fail(error);
    } finally {
      await this.source?.end().catch(() => undefined);
      await this.target?.end().catch(() => undefined);
    }
  }

  private async connect(): Promise<void> {
    this.source = await db.openSession(this.params.source, 'queen-move', 10_000);
    this.target = await db.openSession(this.params.target, 'queen-move', 10_000);
  }

  /** Records the phase (and progress); stops when the move was cancelled meanwhile. */
  private async report(change: { phase?: string; progress?: Record<string, unknown>; error?: string | null; switched?: boolean }): Promise<void> {
    const row = await db.moveRead(this.source!);
    if (row === null || row.id !== this.id || row.phase === 'cancelled') throw new Cancelled();
    await db.moveUpdate(this.source!, this.id, change);
    if (change.phase !== undefined) {
      this.phase = change.phase;
      this.params.log.info({ move: this.id, phase: change.phase }, `database move: ${change.phase}`);
    }
  }

  private async prepare(): Promise<void> {
    const source = this.source!;
    const target = this.target!;
    await db.migrateTarget(this.params.target, 'queen-move', 10_000);
    const tables = await db.movedTables(source);
    await db.unsubscribe(target, source); // what a move cut short left (a driver that stopped, a cancelled move)
    await db.emptyTables(target, tables);
    if (this.params.row.mode === 'offline') return;
    await db.publish(source, tables);
    await db.subscribe(target, this.params.source);
    await this.report({ phase: 'copying', progress: { tables: tables.length, copied: 0 } });
  }

  private async copying(): Promise<void> {
    for (;;) {
      const progress = await db.copyProgress(this.target!);
      await this.report({ progress: { ...progress, lagBytes: await db.lagBytes(this.source!) } });
      if (progress.tables > 0 && progress.copied === progress.tables) break;
      await sleep(TICK_MS);
    }
    await this.report({ phase: 'catching_up' });
  }

  private async catchingUp(): Promise<void> {
    for (;;) {
      const lag = await db.lagBytes(this.source!);
      await this.report({ progress: { lagBytes: lag } });
      if (lag !== null && lag < CATCH_UP_BYTES) return;
      await sleep(TICK_MS);
    }
  }

  /** Fences the source, brings the last changes over, and points every broker at the target. */
  private async switchOver(): Promise<void> {
    const online = this.params.row.mode === 'online';
    const source = this.source!;
    const target = this.target!;
    await this.report({ phase: online ? 'switching' : 'dumping' });
    const fencedAt = Date.now();
    try {
      // A fence whose ended sessions do not go away in time is a switch that cannot finish: rolled back too.
      await db.fence(source, this.params.source.database);
      await withTimeout(this.params.switchTimeoutMs, async () => {
        if (online) {
          const token = crypto.randomUUID();
          await db.writeMarker(source, token);
          while (!(await db.markerArrived(target, token))) {
            if (this.expired) return;
            await sleep(20);
          }
        } else {
          const tables = await db.referencedFirst(source, await db.movedTables(source));
          let rows = 0;
          for (const table of tables) {
            if (this.expired) return;
            rows += await db.copyTable(source, target, table);
          }
          await this.report({ phase: 'restoring', progress: { tables: tables.length, copied: tables.length, rows } });
        }
        if (this.expired) return;
        const sequences = await db.copySequences(source, target);
        await db.unsubscribe(target, source);
        await this.report({ progress: { sequences, pauseMs: Date.now() - fencedAt } });
        await db.moveCopyRow(source, target);
        await db.moveUpdate(target, this.id, { phase: 'switched' });
      });
    } catch (error) {
      if (error instanceof Cancelled) throw error;
      await this.rollBack(`the switch did not finish (${message(error)})`);
      return;
    }
    await this.report({ phase: 'switched', switched: true, progress: { pauseMs: Date.now() - fencedAt } });
  }

  /** Clears the fence and records why (the brokers stay on, or come back to, the source), then drops the replication. */
  private async rollBack(why: string): Promise<void> {
    this.expired = true; // the timed-out work stops at its next step
    this.params.log.warn({ move: this.id }, `database move rolled back: ${why}`);
    await db.unfence(this.source!, this.params.source.database);
    await db.moveUpdate(this.source!, this.id, { phase: 'error', error: `${why}; rolled back to the source, nothing lost` });
    // The target's session may still wait on what made the switch time out: clean up on a fresh one.
    void this.target?.end().catch(() => undefined);
    this.target = await db.openSession(this.params.target, 'queen-move', 10_000).catch(() => null);
    await this.cleanUp().catch(() => undefined);
  }

  /** Drops the replication and empties the target, so the next attempt finds it empty. */
  private async cleanUp(): Promise<void> {
    await db.unsubscribe(this.target, this.source);
    if (this.target !== null && this.source !== null) await db.emptyTables(this.target, await db.movedTables(this.source));
  }

  private async fail(error: unknown): Promise<void> {
    const why = message(error);
    this.params.log.warn({ move: this.id, err: error }, `database move stopped: ${why}`);
    await this.cleanUp().catch(() => undefined);
    if (this.source !== null) await db.moveUpdate(this.source, this.id, { phase: 'error', error: `the move stopped during ${this.phase}: ${why}` }).catch(() => undefined);
  }
}

/** The move was cancelled (POST /migration/reset) while the driver ran. */
class Cancelled extends Error {}

function message(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function withTimeout(ms: number, work: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not done within ${ms / 1000} s`)), ms)));
  try {
    await Promise.race([work(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
