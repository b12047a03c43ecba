/** The one classification of database failures (classifyDatabaseError in src/store/database.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { classifyDatabaseError } from '../../src/store/database.js';

const dbError = (code: string): pg.DatabaseError => Object.assign(new pg.DatabaseError('failed', 0, 'error'), { code });

test('each condition has one class', () => {
  const cases: Array<[unknown, string]> = [
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), 'down'],
    [dbError('57P01'), 'down'],
    [dbError('08006'), 'down'],
    [new Error('Connection terminated unexpectedly'), 'down'],
    [new Error('timeout exceeded when trying to connect'), 'busy'],
    [dbError('57014'), 'timeout'],
    [dbError('40P01'), 'conflict'],
    [dbError('40001'), 'conflict'],
    [dbError('55P03'), 'passing'],
    [dbError('25006'), 'down'], // read-only: the server was demoted by a failover
    [dbError('53300'), 'passing'],
    [dbError('23505'), 'procedure'],
    [dbError('P0001'), 'procedure'],
    [new TypeError('not a database error'), 'other'],
    ['a string', 'other'],
  ];
  for (const [error, kind] of cases) assert.equal(classifyDatabaseError(error), kind, String((error as { code?: string }).code ?? error));
});
