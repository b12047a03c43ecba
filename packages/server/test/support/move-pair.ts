/**
 * The database move's fault tests share one set-up: two PostgreSQL servers of the system's binaries (the source
 * with wal_level=logical) and one broker on the source, with the failover buffer on and a short switch timeout.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { client, startBroker, type BrokerProcess, type TestDatabase } from './harness.js';
import { bufferDir } from './buffering.js';
import { startSystemPostgres, type SystemPostgres } from './system-postgres.js';

/** Registers the servers and the broker with the test file's before/after hooks. */
export class MovePair {
  source!: SystemPostgres;
  target!: SystemPostgres;
  broker!: BrokerProcess;
  database!: TestDatabase;
  readonly env = { FILE_BUFFER_DIR: bufferDir(), FILE_BUFFER_FLUSH_MS: '20', MIGRATION_SWITCH_TIMEOUT_MS: '3000', LOG_LEVEL: 'info' };

  constructor() {
    before(async () => {
      [this.source, this.target] = await Promise.all([startSystemPostgres({ wal_level: 'logical' }), startSystemPostgres()]);
      const source = this.source;
      this.database = {
        name: 'postgres', env: { PG_HOST: '127.0.0.1', PG_PORT: String(source.port), PG_USER: 'postgres', PG_PASSWORD: 'postgres', PG_DB: 'postgres' },
        query: (text, values) => source.sql(text, values), close: async () => undefined,
      };
      this.broker = await startBroker(this.database, this.env);
    });
    after(async () => {
      await this.broker?.stop();
      await this.source?.stop();
      await this.target?.stop();
    });
  }

  /** A broker started anew on the source's address (after the last one was killed). */
  async restartBroker(): Promise<void> {
    this.broker = await startBroker(this.database, this.env);
  }

  /** The start body naming the target. */
  targetBody(): { host: string; port: number; database: string; user: string; password: string } {
    return { host: '127.0.0.1', port: this.target.port, database: 'postgres', user: 'postgres', password: 'postgres' };
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
}
