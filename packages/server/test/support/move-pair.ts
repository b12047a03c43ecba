/**
 * The database move tests share one set-up: two PostgreSQL servers of the system's binaries (the source with
 * wal_level=logical) and brokers on the source, with the failover buffer on.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { client, startBroker, type BrokerProcess, type TestDatabase } from './harness.js';
import { bufferDir } from './buffering.js';
import { startSystemPostgres, type SystemPostgres } from './system-postgres.js';

/** How many brokers, and what their environment adds (the fault tests shorten the switch timeout). */
export interface MovePairOptions {
  brokers?: number;
  env?: Record<string, string>;
}

/** Registers the servers and the brokers with the test file's before/after hooks. */
export class MovePair {
  source!: SystemPostgres;
  target!: SystemPostgres;
  readonly brokers: BrokerProcess[] = [];
  database!: TestDatabase;
  readonly env: Record<string, string>;

  constructor(options: MovePairOptions = {}) {
    this.env = { FILE_BUFFER_DIR: bufferDir(), FILE_BUFFER_FLUSH_MS: '20', LOG_LEVEL: 'info', ...options.env };
    before(async () => {
      [this.source, this.target] = await Promise.all([startSystemPostgres({ wal_level: 'logical' }), startSystemPostgres()]);
      const source = this.source;
      this.database = {
        name: 'postgres', env: { PG_HOST: '127.0.0.1', PG_PORT: String(source.port), PG_USER: 'postgres', PG_PASSWORD: 'postgres', PG_DB: 'postgres' },
        query: (text, values) => source.sql(text, values), close: async () => undefined,
      };
      for (let i = 0; i < (options.brokers ?? 1); i++) this.brokers.push(await startBroker(this.database, this.env));
    });
    after(async () => {
      for (const broker of this.brokers) await broker.stop();
      await this.source?.stop();
      await this.target?.stop();
    });
  }

  /** The first broker. */
  get broker(): BrokerProcess {
    return this.brokers[0]!;
  }

  /** The first broker started anew on the source's address (after it was killed). */
  async restartBroker(): Promise<void> {
    this.brokers[0] = await startBroker(this.database, this.env);
  }

  /** The start body naming the target. */
  targetBody(): { host: string; port: number; database: string; user: string; password: string; ssl: false } {
    return { host: '127.0.0.1', port: this.target.port, database: 'postgres', user: 'postgres', password: 'postgres', ssl: false };
  }

  /** The target as a URL (what `queenctl migrate --to` takes). */
  targetUrl(): string {
    return `postgres://postgres:postgres@127.0.0.1:${this.target.port}/postgres`;
  }

  /** Polls the move's status until `done` holds. */
  async statusUntil(done: (status: any) => boolean, timeoutMs = 60_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await client(this.broker.url).get('/api/v1/migration/status');
      if (res.status === 200 && done(res.json)) return res.json;
      if (Date.now() > deadline) assert.fail(`status: ${res.text}\n${this.broker.output().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Waits until every broker reports the target as its database server. */
  async everyBrokerOnTarget(timeoutMs = 60_000): Promise<void> {
    const server = `127.0.0.1:${this.target.port}`;
    const deadline = Date.now() + timeoutMs;
    const onTarget = async (broker: BrokerProcess) => (await client(broker.url).get('/health').catch(() => null))?.json?.database_server === server;
    while (!(await Promise.all(this.brokers.map(onTarget))).every(Boolean)) {
      if (Date.now() > deadline) assert.fail(`not every broker moved to ${server}\n${this.brokers.map((b) => b.output().slice(-2000)).join('\n---\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The `queen:` sessions on a server (one application name per broker process). */
  static async sessions(server: SystemPostgres): Promise<string[]> {
    return (await server.sql(`SELECT DISTINCT application_name AS a FROM pg_stat_activity WHERE application_name LIKE 'queen:%' ORDER BY 1`)).rows.map((r) => r.a);
  }
}
