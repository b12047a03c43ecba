/**
 * Consistent reads: several statements that must agree with each other (a series and its per-queue rows, a
 * status page's counters and lists) run on one connection inside one REPEATABLE READ, READ ONLY transaction,
 * so a commit landing between two of them cannot make one include what the other misses.
 */
import type pg from 'pg';
import { databaseTransaction } from './transaction.js';

/** Runs `work`'s queries against one snapshot of the database. */
export function readSnapshot<T>(db: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return databaseTransaction(db, {
    begin: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    work: async (client) => ({ commit: true, value: await work(client) }),
  });
}
