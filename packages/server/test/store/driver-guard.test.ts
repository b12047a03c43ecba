/**
 * An exception inside the database driver's message parser (src/store/driver-guard.ts) fails the connection
 * it happened on, not the process. A real client on a real PostgreSQL receives a corrupted message (a row
 * description shorter than it claims: the parser reads past its buffer and throws, as it throws
 * ERR_STRING_TOO_LONG for a field of more than 512 MB); unguarded, that exception escapes the socket's `data`
 * event into the event loop and the broker exits.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { guardDriverExceptions } from '../../src/store/driver-guard.js';
import { serverConnection } from '../support/harness.js';

/** 'T' (RowDescription), length 6, one field, and nothing of that field: the parser reads past the end. */
const CORRUPT = Buffer.from([0x54, 0, 0, 0, 6, 0, 1]);

type Streamed = { connection: { stream: { emit(event: string, chunk: Buffer): boolean } } };

test('a parser exception fails that connection with the error; the process and the other connections go on', async () => {
  guardDriverExceptions();
  const victim = new pg.Client(serverConnection());
  const bystander = new pg.Client(serverConnection());
  await victim.connect();
  await bystander.connect();
  const failed = new Promise<Error>((resolve) => victim.on('error', resolve)); // a later 'Connection terminated' too
  const running = victim.query('SELECT pg_sleep(2)').then(() => null, (error: Error) => error);
  // An exception thrown by the data listener would surface here, synchronously (in the broker: uncaught).
  assert.doesNotThrow(() => (victim as unknown as Streamed).connection.stream.emit('data', CORRUPT));
  const error = await failed;
  assert.ok(error instanceof RangeError || /out of range|beyond/i.test(error.message), String(error));
  assert.ok((await running) instanceof Error, 'the query of the broken connection fails');
  assert.deepEqual((await bystander.query('SELECT 1 AS one')).rows, [{ one: 1 }]);
  await bystander.end();
  await victim.end().catch(() => undefined);
});

test('through a pool: the query fails, the pool drops the connection and serves the next query', async () => {
  guardDriverExceptions();
  const pool = new pg.Pool({ ...serverConnection(), max: 1 } as pg.PoolConfig);
  pool.on('error', () => undefined); // errors of idle connections (the broker logs them)
  let victim: unknown;
  pool.once('acquire', (client) => (victim = client));
  const running = pool.query('SELECT pg_sleep(2)').then(() => null, (error: Error) => error);
  while (victim === undefined || (victim as { activeQuery?: unknown }).activeQuery == null) await new Promise((r) => setTimeout(r, 10));
  assert.doesNotThrow(() => (victim as Streamed).connection.stream.emit('data', CORRUPT));
  assert.ok((await running) instanceof Error);
  await new Promise((r) => setTimeout(r, 100)); // the connection's late "terminated" error must not escape either
  assert.deepEqual((await pool.query('SELECT 2 AS two')).rows, [{ two: 2 }]);
  await pool.end();
});
