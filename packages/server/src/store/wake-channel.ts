/**
 * The cross-process half of the wake-up bus, on one dedicated connection.
 *
 * Receiving: the connection LISTENs on `queen_wake` and hands every notification (queue, namespace, task)
 * to a callback; notifications this process sent itself (same origin) are skipped, it already woke its own
 * parked pops.
 *
 * Sending: commits do not NOTIFY themselves. PostgreSQL serialises the commits of every transaction that
 * notified (a database-wide lock held through the commit's WAL flush), which would undo group commit. The
 * broker publishes after its commits instead: signals accumulate while one publish is in flight, and the
 * next publish sends them all in one statement, with synchronous_commit off (a notification is a hint, not
 * data). A broker that dies between a commit and its publish costs other processes' parked pops one backoff
 * tick, the same as a lost notification.
 *
 * The connection is re-established after a failure; publishes made while it is down are dropped.
 *
 * Other channels (the maintenance flags) ride on the same connection: `listen()` registers a handler before
 * `start()`, and every (re)connection LISTENs to them too.
 */
import pg from 'pg';

/** What a notification says: a commit touched this queue (namespace/task null when not known). */
export interface WakeSignal {
  queue: string;
  namespace: string | null;
  task: string | null;
  /** The queue's configuration changed or it was deleted: processes drop what they cached of it. */
  config?: boolean;
}

const CHANNEL = 'queen_wake';

/** What a wake channel is built from. */
export interface WakeChannelParams {
  /** A new (unconnected) client for the LISTEN connection. */
  connect: () => pg.Client;
  /** This process's id: notifications it published itself are ignored (it already woke its own pops). */
  origin: string;
  /** A wake from another process. */
  onWake: (signal: WakeSignal) => void;
  /** The connection failed (it reconnects by itself). */
  onError: (error: Error) => void;
}

/** A LISTEN/NOTIFY connection that reconnects by itself. */
export class WakeChannel {
  private client: pg.Client | null = null;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private pending = new Map<string, WakeSignal>();
  private publishing = false;
  private readonly channels = new Map<string, (payload: string | undefined) => void>();

  private readonly connect: () => pg.Client;
  private readonly origin: string;
  private readonly onWake: (signal: WakeSignal) => void;
  private readonly onError: (error: Error) => void;

  constructor(params: WakeChannelParams) {
    this.connect = params.connect;
    this.origin = params.origin;
    this.onWake = params.onWake;
    this.onError = params.onError;
  }

  /** Also listens on `channel` (call before `start()`); `handler` gets each notification's payload. */
  listen(channel: string, handler: (payload: string | undefined) => void): void {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
    this.channels.set(channel, handler);
  }

  /** Connects and starts listening; resolves once LISTEN is in place. */
  async start(): Promise<void> {
    const client = this.connect();
    client.on('notification', (message) => {
      if (message.channel === CHANNEL) this.dispatch(message.payload);
      else this.channels.get(message.channel)?.(message.payload);
    });
    client.on('error', (error) => this.fail(client, error));
    client.on('end', () => this.fail(client, new Error('wake connection ended')));
    await client.connect();
    const others = [...this.channels.keys()].map((c) => `; LISTEN ${c}`).join('');
    await client.query(`SET synchronous_commit = off; LISTEN ${CHANNEL}${others}`);
    this.client = client;
  }

  /** Stops listening and closes the connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  /** Tells the other broker processes that a commit touched this queue. */
  publish(signal: WakeSignal): void {
    const known = this.pending.get(signal.queue);
    if (known === undefined || (known.namespace === null && signal.namespace !== null)) {
      this.pending.set(signal.queue, known?.config === true ? { ...signal, config: true } : signal);
    } else if (signal.config === true && known.config !== true) {
      this.pending.set(signal.queue, { ...known, config: true });
    }
    if (!this.publishing) setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    if (this.publishing || this.pending.size === 0) return;
    const client = this.client;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    if (client === null) return;
    this.publishing = true;
    try {
      const payloads = batch.map((s) => JSON.stringify({ origin: this.origin, queue: s.queue, namespace: s.namespace, task: s.task, ...(s.config === true ? { config: true } : {}) }));
      await client.query(`SELECT pg_notify('${CHANNEL}', p) FROM unnest($1::text[]) AS p`, [payloads]);
    } catch (error) {
      this.onError(error as Error);
    } finally {
      this.publishing = false;
      if (this.pending.size > 0) void this.flush();
    }
  }

  private dispatch(payload: string | undefined): void {
    if (payload === undefined) return;
    try {
      const parsed = JSON.parse(payload) as { origin?: string; queue?: string; namespace?: string | null; task?: string | null; config?: unknown };
      if (typeof parsed.queue !== 'string' || parsed.origin === this.origin) return;
      this.onWake({ queue: parsed.queue, namespace: parsed.namespace ?? null, task: parsed.task ?? null, ...(parsed.config === true ? { config: true } : {}) });
    } catch (error) {
      this.onError(error as Error);
    }
  }

  private fail(client: pg.Client, error: Error): void {
    if (this.client !== client || this.stopped) return;
    this.client = null;
    this.onError(error);
    client.end().catch(() => undefined);
    const retry = (): void => {
      if (this.stopped) return;
      this.start().catch((e: Error) => {
        this.onError(e);
        this.retryTimer = setTimeout(retry, 1000);
      });
    };
    this.retryTimer = setTimeout(retry, 1000);
  }
}
