/**
 * The cross-process half of the wake-up bus: one dedicated connection LISTENs on `queen_wake` and hands every
 * notification (queue, namespace, task) to a callback. Notifications this process sent itself (same origin)
 * are skipped: it already woke its own parked pops. The connection is re-established after a failure; the
 * parked pops' backoff ticks cover whatever was missed meanwhile.
 */
import pg from 'pg';

/** What a notification says: a write or a lease release happened on this queue. */
export interface WakeSignal {
  queue: string;
  namespace: string | null;
  task: string | null;
}

/** A LISTEN connection that reconnects by itself. */
export class WakeListener {
  private client: pg.Client | null = null;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly connect: () => pg.Client,
    private readonly origin: string,
    private readonly onWake: (signal: WakeSignal) => void,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Connects and starts listening; resolves once LISTEN is in place. */
  async start(): Promise<void> {
    const client = this.connect();
    client.on('notification', (message) => this.dispatch(message.payload));
    client.on('error', (error) => this.fail(client, error));
    client.on('end', () => this.fail(client, new Error('listen connection ended')));
    await client.connect();
    await client.query('LISTEN queen_wake');
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

  private dispatch(payload: string | undefined): void {
    if (payload === undefined) return;
    try {
      const parsed = JSON.parse(payload) as { origin?: string; queue?: string; namespace?: string; task?: string };
      if (typeof parsed.queue !== 'string' || parsed.origin === this.origin) return;
      this.onWake({ queue: parsed.queue, namespace: parsed.namespace ?? null, task: parsed.task ?? null });
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
