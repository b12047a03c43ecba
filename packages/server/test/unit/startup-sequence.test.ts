/**
 * The start-up sequence (src/boot/sequence.ts): stops run in reverse order of registration, a failing step
 * undoes its own partial work and every step before it, the failure names its step, and known conditions
 * are `expected` (one line, no stack) while anything else is not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { StartupError, StartupFailure, StartupSequence } from '../../src/boot/sequence.js';

const log = pino({ level: 'silent' });

test('a failing step undoes its own partial work, then the steps before it, in reverse order', async () => {
  const undone: string[] = [];
  const sequence = new StartupSequence(log);
  await sequence.step('first', (defer) => {
    defer('a', () => void undone.push('first/a'));
    defer('b', async () => void undone.push('first/b'));
  });
  const failure = await sequence.step('second', (defer) => {
    defer('c', () => void undone.push('second/c'));
    throw new StartupError('port 6632 is already in use (set PORT)');
  }).then(() => null, (error: unknown) => error);
  assert.ok(failure instanceof StartupFailure);
  assert.equal(failure.step, 'second');
  assert.equal(failure.expected, true);
  assert.equal(failure.message, 'port 6632 is already in use (set PORT)');
  assert.deepEqual(undone, ['second/c', 'first/b', 'first/a']);
});

test('a stop that fails is logged and the others still run; unwinding twice runs each stop once', async () => {
  const undone: string[] = [];
  const sequence = new StartupSequence(log);
  await sequence.step('one', (defer) => {
    defer('a', () => void undone.push('a'));
    defer('b', () => {
      throw new Error('cannot stop');
    });
    defer('c', () => void undone.push('c'));
  });
  await Promise.all([sequence.unwind(), sequence.unwind()]);
  await sequence.unwind();
  assert.deepEqual(undone, ['c', 'a']);
});

test('operating-system and PostgreSQL errors are expected and named by their step; others are not', async () => {
  const cases: Array<[unknown, boolean, string]> = [
    [Object.assign(new Error('ENOTDIR: not a directory, mkdir \'/x\''), { code: 'ENOTDIR', syscall: 'mkdir' }), true, "buffer: ENOTDIR: not a directory, mkdir '/x'"],
    [new pg.DatabaseError('relation "queen.system_state" does not exist', 0, 'error'), true, 'buffer: relation "queen.system_state" does not exist'],
    [new TypeError('x is not a function'), false, 'buffer: x is not a function'],
  ];
  for (const [cause, expected, message] of cases) {
    const failure = await new StartupSequence(log).step('buffer', () => {
      throw cause;
    }).then(() => null, (error: unknown) => error);
    assert.ok(failure instanceof StartupFailure);
    assert.equal(failure.expected, expected, message);
    assert.equal(failure.message, message);
    assert.equal(failure.cause, cause);
  }
});

test('an aborted sequence refuses the next step and undoes what started', async () => {
  const undone: string[] = [];
  const controller = new AbortController();
  const sequence = new StartupSequence(log, controller.signal);
  await sequence.step('database', (defer) => defer('pool', () => void undone.push('pool')));
  controller.abort('SIGTERM');
  let ran = false;
  const failure = await sequence.step('migrations', () => {
    ran = true;
  }).then(() => null, (error: unknown) => error);
  assert.equal(ran, false);
  assert.ok(failure instanceof StartupFailure);
  assert.equal(failure.message, 'start-up interrupted by SIGTERM');
  assert.deepEqual(undone, ['pool']);
});
