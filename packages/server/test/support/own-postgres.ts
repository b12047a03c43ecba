/**
 * A broker on a PostgreSQL of its own (embedded, data in a temporary folder) that a test may stop and start:
 * the outage suites never touch the test runner's shared server. Registers the node:test hooks in the
 * calling scope; the getters throw when used before the `before` hook ran.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../dist/index.js';
import { freePort, startBroker, type BrokerProcess, type TestDatabase } from './harness.js';
import { bufferDir } from './buffering.js';

/** The live values of a `useOwnPostgres()` set-up. */
export interface OwnPostgres {
  readonly broker: BrokerProcess;
  /** The broker's database, for assertions on stored state. */
  readonly database: TestDatabase;
  /** The broker's FILE_BUFFER_DIR. */
  readonly bufferDir: string;
  /** Stops PostgreSQL (the broker keeps running). */
  stopPostgres(): Promise<void>;
  /** Starts it again on the same port and data. */
  startPostgres(): Promise<void>;
}

/** A PostgreSQL of the file's own and a broker on it with `brokerEnv` (and a fresh FILE_BUFFER_DIR). */
export function useOwnPostgres(name: string, brokerEnv: Record<string, string>): OwnPostgres {
  const dir = bufferDir();
  let folder = '';
  let port = 0;
  let postgres: EmbeddedServer | null = null;
  let broker: BrokerProcess | undefined;
  let database: TestDatabase | undefined;
  const startPostgres = async (): Promise<void> => {
    postgres = await startEmbeddedPostgres(path.join(folder, 'pgdata'), port, () => undefined, 100);
  };
  before(async () => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), `queen-${name}-pg-`));
    fs.chmodSync(folder, 0o777); // as root, PostgreSQL runs as `postgres` and must reach its data folder
    port = await freePort();
    await startPostgres();
    const env = { PG_HOST: '127.0.0.1', PG_PORT: String(port), PG_USER: 'postgres', PG_PASSWORD: 'postgres', PG_DB: 'postgres' };
    const pool = new pg.Pool({ host: '127.0.0.1', port, user: 'postgres', password: 'postgres', database: 'postgres', max: 2 });
    pool.on('error', () => undefined);
    database = { name: 'postgres', env, query: (text, values) => pool.query(text, values), close: () => pool.end() };
    broker = await startBroker(database, { FILE_BUFFER_DIR: dir, ...brokerEnv });
  });
  after(async () => {
    await broker?.stop();
    await database?.close().catch(() => undefined);
    await postgres?.stop();
    fs.rmSync(folder, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const live = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useOwnPostgres(): \`${what}\` used before the \`before\` hook ran`);
    return value;
  };
  return {
    get broker() {
      return live(broker, 'broker');
    },
    get database() {
      return live(database, 'database');
    },
    bufferDir: dir,
    async stopPostgres() {
      await postgres?.stop();
      postgres = null;
    },
    startPostgres,
  };
}
