/**
 * Admission of the administrative reads and writes (the catalog and the message administration) to the pool.
 *
 * A flood of one administrative route must not take the connections that `/health`, pushes, pops, acks and
 * the background services need: these requests hold at most DB_POOL_ADMIN_CONNECTIONS connections at once,
 * the rest wait here, in arrival order, for at most DB_POOL_ACQUIRE_TIMEOUT_MS (then 500 `pool`, as a pool
 * wait would answer). And work stops for a client that left: a request whose client disconnects leaves the
 * queue at once, and a statement it is running is cancelled (`pg_cancel_backend`); that connection is then
 * discarded rather than reused, so a late cancel can never reach another request's statement.
 *
 * The admitted pool is the pool with its `connect` and `query` replaced (everything else is the pool's own):
 * the store functions take it as they take the pool.
 */
import type pg from 'pg';
import { requestSignal } from '../core/request-scope.js';
import { clientLeft, poolUnavailable } from '../errors.js';

/** A counting gate whose waiters leave when their request is aborted or their wait times out. */
export class AdmissionGate {
  private active = 0;
  private readonly waiting: Array<{ admit: () => void }> = [];

  constructor(private readonly limit: number) {}

  /** Connections held and requests waiting (for tests and metrics). */
  get state(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  /** Waits for a slot; resolves with the function that frees it. */
  enter(signal: AbortSignal | undefined, waitMs: number): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(clientLeft());
    if (this.active < this.limit) {
      this.active += 1;
      return Promise.resolve(this.leaver());
    }
    return new Promise((resolve, reject) => {
      const entry = {
        admit: () => {
          settle();
          resolve(this.leaver());
        },
      };
      const onAbort = (): void => {
        settle();
        reject(clientLeft());
      };
      const timer = setTimeout(() => {
        settle();
        reject(poolUnavailable());
      }, waitMs);
      const settle = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = this.waiting.indexOf(entry);
        if (at >= 0) this.waiting.splice(at, 1);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  /** The function that frees one slot once: the slot goes to the first waiter, if any. */
  private leaver(): () => void {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.waiting[0];
      if (next !== undefined) next.admit(); // the slot passes on: `active` is unchanged
      else this.active -= 1;
    };
  }
}

/** How often the statement of a request whose client left is cancelled again until its connection returns. */
const CANCEL_REPEAT_MS = 200;

/** The pool as the administrative routes use it: admitted through `gate`, cancelled when the client leaves. */
export function admittedPool(pool: pg.Pool, params: { gate: AdmissionGate; waitMs: number }): pg.Pool {
  const { gate, waitMs } = params;

  async function connect(): Promise<pg.PoolClient> {
    const signal = requestSignal();
    const leave = await gate.enter(signal, waitMs);
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      leave();
      throw error;
    }
    if (signal === undefined) return withRelease(client, leave, () => undefined);
    let cancelled = false;
    let released = false;
    // PostgreSQL drops a cancel that reaches a session between statements, so a statement sent just after the
    // client left would run on: the cancel is repeated until the connection comes back.
    const cancelUntilReleased = (): void => {
      if (released) return;
      const pid = (client as pg.PoolClient & { processID?: number }).processID;
      // $1::integer: Citus adds pg_cancel_backend(global_pid bigint), and an untyped parameter matches both.
      if (typeof pid === 'number') void pool.query('SELECT pg_cancel_backend($1::integer)', [pid]).catch(() => undefined);
      setTimeout(cancelUntilReleased, CANCEL_REPEAT_MS).unref();
    };
    const onAbort = (): void => {
      cancelled = true;
      cancelUntilReleased();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // The client may have left while the connection was being made: the listener above never fires then.
    if (signal.aborted) onAbort();
    return withRelease(client, leave, () => {
      released = true;
      signal.removeEventListener('abort', onAbort);
      return cancelled ? new Error('request aborted: connection discarded') : undefined;
    });
  }

  async function query(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult> {
    const client = await connect();
    try {
      const result = await client.query(text as string, values);
      client.release();
      return result;
    } catch (error) {
      client.release(error as Error); // as pg-pool's own query does: a failed statement's connection is not reused
      throw error;
    }
  }

  const admitted = Object.create(pool) as pg.Pool;
  admitted.connect = connect as pg.Pool['connect'];
  admitted.query = query as pg.Pool['query'];
  return admitted;
}

/**
 * Wraps the pool's release of `client` (pg-pool assigns it anew at every checkout): it runs `finish` (whose
 * error, if any, makes the pool discard the connection), then frees the slot. Idempotent. While checked out
 * the client has an error listener (pg-pool removes its own at checkout: a connection lost during a query
 * would otherwise emit an uncaught 'error'); a client that failed keeps a silent one, as it is discarded.
 */
function withRelease(client: pg.PoolClient, leave: () => void, finish: () => Error | undefined): pg.PoolClient {
  const release = client.release.bind(client);
  let broken: Error | undefined;
  const onError = (error: Error): void => {
    broken = error;
  };
  client.on('error', onError);
  let released = false;
  client.release = (error?: Error | boolean) => {
    if (released) return;
    released = true;
    const discard = finish() ?? broken;
    if (discard === undefined) client.off('error', onError);
    release(discard ?? error);
    leave();
  };
  return client;
}
