/**
 * The re-attempt semaphore (src/core/semaphore.ts): at most `limit` tasks at once, waiting tasks in arrival
 * order, urgent ones (a parked pop's attempt after a wake) ahead of the periodic re-checks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Semaphore } from '../../src/core/semaphore.js';

test('urgent tasks take the next free slot before earlier non-urgent ones; each kind keeps its order', async () => {
  const semaphore = new Semaphore(1);
  const order: string[] = [];
  let running = 0;
  let peak = 0;
  let release: () => void = () => undefined;
  const blocker = semaphore.run(() => new Promise<void>((resolve) => (release = resolve)));
  const task = (name: string) => async (): Promise<void> => {
    running += 1;
    peak = Math.max(peak, running);
    order.push(name);
    await Promise.resolve();
    running -= 1;
  };
  const all = [
    semaphore.run(task('recheck-1')),
    semaphore.run(task('recheck-2')),
    semaphore.run(task('wake-1'), true),
    semaphore.run(task('wake-2'), true),
  ];
  await Promise.resolve();
  release();
  await Promise.all([blocker, ...all]);
  assert.deepEqual(order, ['wake-1', 'wake-2', 'recheck-1', 'recheck-2']);
  assert.equal(peak, 1);
});

test('a waiting task promoted to urgent goes ahead; promoting one that has started reports false', async () => {
  const semaphore = new Semaphore(1);
  const order: string[] = [];
  let release: () => void = () => undefined;
  const blocker = semaphore.run(() => new Promise<void>((resolve) => (release = resolve)));
  let promote: () => boolean = () => false;
  const task = (name: string) => async (): Promise<void> => void order.push(name);
  const all = [
    semaphore.run(task('recheck-a')),
    semaphore.run(task('recheck-b'), false, (p) => (promote = p)),
    semaphore.run(task('recheck-c')),
  ];
  assert.equal(promote(), true);
  release();
  await Promise.all([blocker, ...all]);
  assert.deepEqual(order, ['recheck-b', 'recheck-a', 'recheck-c']);
  assert.equal(promote(), false);
});
