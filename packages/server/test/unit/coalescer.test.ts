/**
 * Group commit (src/core/coalescer.ts): concurrent submissions share one `run` call, each submitter gets its
 * own results in order, `maxInFlight` and `maxItems` bound the calls, and a failed merged call can be
 * retried per submission so that one bad request fails alone.
 *
 * `run` is a scripted fake: every call is recorded and answered only when the test says so, so the
 * interleavings are explicit (no timers).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Coalescer, type CoalescerOptions } from '../../src/core/coalescer.js';

interface Call {
  items: string[];
  resolve: (results: string[]) => void;
  reject: (error: unknown) => void;
}

/** A `run` whose calls are answered by the test. */
class ScriptedRun {
  readonly calls: Call[] = [];
  inFlight = 0;
  maxObservedInFlight = 0;
  private waiters: Array<{ count: number; resolve: () => void }> = [];

  readonly run = (items: string[]): Promise<string[]> =>
    new Promise<string[]>((resolve, reject) => {
      this.inFlight += 1;
      this.maxObservedInFlight = Math.max(this.maxObservedInFlight, this.inFlight);
      const done = (): void => {
        this.inFlight -= 1;
      };
      this.calls.push({
        items: [...items],
        resolve: (results) => {
          done();
          resolve(results);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      this.waiters = this.waiters.filter((w) => {
        if (this.calls.length >= w.count) w.resolve();
        return this.calls.length < w.count;
      });
    });

  /** Resolves once `count` calls have been made in total. */
  callsReached(count: number): Promise<void> {
    if (this.calls.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** Answers call i with one result per item: `<item>:ok`. */
  answer(i: number): void {
    const call = this.calls[i]!;
    call.resolve(call.items.map((item) => `${item}:ok`));
  }
}

/** A `run` that answers at once: `<item>:ok`, or fails the whole call if any item starts with "bad". */
function immediateRun(calls: string[][]): (items: string[]) => Promise<string[]> {
  return async (items) => {
    calls.push([...items]);
    if (items.some((item) => item.startsWith('bad'))) throw new Error(`bad batch: ${items.join(',')}`);
    return items.map((item) => `${item}:ok`);
  };
}

const options = (overrides: Partial<CoalescerOptions<string>> = {}): CoalescerOptions<string> => ({
  maxInFlight: 1,
  maxItems: 1000,
  isolateOnError: () => true,
  ...overrides,
});

/** Lets the event loop run the coalescer's setImmediate flush and any promise continuations. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Records whether a promise has settled yet. */
function track<T>(promise: Promise<T>): { settled: () => boolean; promise: Promise<T> } {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return { settled: () => settled, promise };
}

describe('results', () => {
  test('each submitter gets the results of its own items, in order', async () => {
    const calls: string[][] = [];
    const coalescer = new Coalescer(immediateRun(calls), options());
    const [a, b, c] = await Promise.all([
      coalescer.submit(['a1', 'a2', 'a3']),
      coalescer.submit(['b1']),
      coalescer.submit(['c1', 'c2']),
    ]);
    assert.deepEqual(a, ['a1:ok', 'a2:ok', 'a3:ok']);
    assert.deepEqual(b, ['b1:ok']);
    assert.deepEqual(c, ['c1:ok', 'c2:ok']);
  });

  test('an empty submission resolves to [] without a run call', async () => {
    const calls: string[][] = [];
    const coalescer = new Coalescer(immediateRun(calls), options());
    assert.deepEqual(await coalescer.submit([]), []);
    assert.deepEqual(calls, []);
  });

  test('results are positional: the i-th result of the merged call goes to the i-th merged item', async () => {
    const coalescer = new Coalescer<string, string>(async (items) => items.map((item, i) => `${i}/${item}`), options());
    const [a, b] = await Promise.all([coalescer.submit(['x', 'y']), coalescer.submit(['z'])]);
    assert.deepEqual(a, ['0/x', '1/y']);
    assert.deepEqual(b, ['2/z']);
  });
});

describe('coalescing', () => {
  test('submissions arriving together share one run call, in submission order', async () => {
    const calls: string[][] = [];
    const coalescer = new Coalescer(immediateRun(calls), options({ maxInFlight: 4 }));
    await Promise.all([coalescer.submit(['a1', 'a2']), coalescer.submit(['b1']), coalescer.submit(['c1'])]);
    assert.deepEqual(calls, [['a1', 'a2', 'b1', 'c1']]);
  });

  test('a submission arriving while the only slot is busy waits, and everything that queued up meanwhile shares the next call', async () => {
    const run = new ScriptedRun();
    const coalescer = new Coalescer(run.run, options({ maxInFlight: 1 }));
    const a = track(coalescer.submit(['a1']));
    await run.callsReached(1);
    const b = track(coalescer.submit(['b1']));
    const c = track(coalescer.submit(['c1', 'c2']));
    await turn();
    await turn();
    assert.equal(run.calls.length, 1, 'no second call while the slot is busy');
    assert.equal(b.settled() || c.settled(), false);

    run.answer(0);
    assert.deepEqual(await a.promise, ['a1:ok']);
    await run.callsReached(2);
    assert.deepEqual(run.calls.map((call) => call.items), [['a1'], ['b1', 'c1', 'c2']]);
    run.answer(1);
    assert.deepEqual(await b.promise, ['b1:ok']);
    assert.deepEqual(await c.promise, ['c1:ok', 'c2:ok']);
  });
});

describe('keys', () => {
  /** Items are `<key>/<name>`: the key is what precedes the slash. */
  const byKey = (item: string): string => item.split('/')[0]!;

  test('a submission sharing a key with the call being assembled waits for the next call; order is kept', async () => {
    const calls: string[][] = [];
    const coalescer = new Coalescer(immediateRun(calls), options({ maxInFlight: 1, key: byKey }));
    const answers = await Promise.all([
      coalescer.submit(['p/a1', 'p/a2']), // one submission may repeat a key
      coalescer.submit(['q/b1']),
      coalescer.submit(['p/c1']), // p is in the call: waits, and so does everything after it
      coalescer.submit(['r/d1']),
    ]);
    assert.deepEqual(calls, [['p/a1', 'p/a2', 'q/b1'], ['p/c1', 'r/d1']]);
    assert.deepEqual(answers, [['p/a1:ok', 'p/a2:ok'], ['q/b1:ok'], ['p/c1:ok'], ['r/d1:ok']]);
  });

  test('without keys the same submissions share one call', async () => {
    const calls: string[][] = [];
    const coalescer = new Coalescer(immediateRun(calls), options({ maxInFlight: 1 }));
    await Promise.all([coalescer.submit(['p/a1']), coalescer.submit(['p/c1'])]);
    assert.deepEqual(calls, [['p/a1', 'p/c1']]);
  });
});

describe('maxInFlight', () => {
  test('never more than maxInFlight calls at once; a freed slot takes the queued submissions', async () => {
    const run = new ScriptedRun();
    const coalescer = new Coalescer(run.run, options({ maxInFlight: 2, maxItems: 1 }));
    const results = ['s1', 's2', 's3', 's4', 's5'].map((item) => track(coalescer.submit([item])));
    await run.callsReached(2);
    await turn();
    await turn();
    assert.equal(run.calls.length, 2);
    assert.equal(run.inFlight, 2);

    run.answer(0);
    await run.callsReached(3);
    await turn();
    assert.equal(run.calls.length, 3);
    assert.equal(run.inFlight, 2);

    run.answer(1);
    run.answer(2);
    await run.callsReached(5);
    run.answer(3);
    run.answer(4);
    const answers = await Promise.all(results.map((r) => r.promise));
    assert.deepEqual(answers, [['s1:ok'], ['s2:ok'], ['s3:ok'], ['s4:ok'], ['s5:ok']]);
    assert.deepEqual(run.calls.map((call) => call.items), [['s1'], ['s2'], ['s3'], ['s4'], ['s5']]);
    assert.equal(run.maxObservedInFlight, 2);
  });
});

describe('maxItems', () => {
  test('a call takes submissions while they fit in maxItems and never splits one', async () => {
    const run = new ScriptedRun();
    const coalescer = new Coalescer(run.run, options({ maxInFlight: 1, maxItems: 5 }));
    const first = track(coalescer.submit(['f1']));
    await run.callsReached(1);
    // Queued while the slot is busy: 3 + 3 > 5, so the next call takes only the first of these; then 3 + 2 = 5.
    const a = track(coalescer.submit(['a1', 'a2', 'a3']));
    const b = track(coalescer.submit(['b1', 'b2', 'b3']));
    const c = track(coalescer.submit(['c1', 'c2']));
    run.answer(0);
    await first.promise;
    await run.callsReached(2);
    assert.deepEqual(run.calls[1]!.items, ['a1', 'a2', 'a3']);
    run.answer(1);
    await run.callsReached(3);
    assert.deepEqual(run.calls[2]!.items, ['b1', 'b2', 'b3', 'c1', 'c2']);
    run.answer(2);
    assert.deepEqual(await a.promise, ['a1:ok', 'a2:ok', 'a3:ok']);
    assert.deepEqual(await b.promise, ['b1:ok', 'b2:ok', 'b3:ok']);
    assert.deepEqual(await c.promise, ['c1:ok', 'c2:ok']);
    assert.equal(run.calls.length, 3);
  });

  test('a submission larger than maxItems runs whole, alone', async () => {
    const run = new ScriptedRun();
    const coalescer = new Coalescer(run.run, options({ maxInFlight: 1, maxItems: 2 }));
    const big = track(coalescer.submit(['x1', 'x2', 'x3', 'x4']));
    const small = track(coalescer.submit(['y1']));
    await run.callsReached(1);
    assert.deepEqual(run.calls[0]!.items, ['x1', 'x2', 'x3', 'x4']);
    run.answer(0);
    await run.callsReached(2);
    assert.deepEqual(run.calls[1]!.items, ['y1']);
    run.answer(1);
    assert.deepEqual(await big.promise, ['x1:ok', 'x2:ok', 'x3:ok', 'x4:ok']);
    assert.deepEqual(await small.promise, ['y1:ok']);
  });
});

describe('failures', () => {
  test('isolateOnError true: the merged call is retried per submission, only the bad one fails', async () => {
    const calls: string[][] = [];
    const seen: unknown[] = [];
    const coalescer = new Coalescer(immediateRun(calls), options({
      maxInFlight: 1,
      isolateOnError: (error) => {
        seen.push(error);
        return true;
      },
    }));
    const results = await Promise.allSettled([
      coalescer.submit(['ok1', 'ok2']),
      coalescer.submit(['bad1']),
      coalescer.submit(['ok3']),
    ]);
    assert.deepEqual(results[0], { status: 'fulfilled', value: ['ok1:ok', 'ok2:ok'] });
    assert.equal(results[1].status, 'rejected');
    assert.equal((results[1] as PromiseRejectedResult).reason.message, 'bad batch: bad1');
    assert.deepEqual(results[2], { status: 'fulfilled', value: ['ok3:ok'] });
    assert.deepEqual(calls, [['ok1', 'ok2', 'bad1', 'ok3'], ['ok1', 'ok2'], ['bad1'], ['ok3']]);
    assert.equal(seen.length, 1);
    assert.equal((seen[0] as Error).message, 'bad batch: ok1,ok2,bad1,ok3');
  });

  test('isolateOnError false: every submission of the failed call rejects with its error, no retry', async () => {
    const calls: string[][] = [];
    const coalescer = new Coalescer(immediateRun(calls), options({ maxInFlight: 1, isolateOnError: () => false }));
    const results = await Promise.allSettled([
      coalescer.submit(['ok1']),
      coalescer.submit(['bad1']),
      coalescer.submit(['ok2']),
    ]);
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected', 'rejected']);
    for (const r of results) assert.equal((r as PromiseRejectedResult).reason.message, 'bad batch: ok1,bad1,ok2');
    assert.deepEqual(calls, [['ok1', 'bad1', 'ok2']]);
  });

  test('a failing call that held one submission rejects it without a retry', async () => {
    const calls: string[][] = [];
    const coalescer = new Coalescer(immediateRun(calls), options({ isolateOnError: () => true }));
    await assert.rejects(coalescer.submit(['bad-alone']), { message: 'bad batch: bad-alone' });
    assert.deepEqual(calls, [['bad-alone']]);
  });

  test('the coalescer keeps working after a failure', async () => {
    const calls: string[][] = [];
    const coalescer = new Coalescer(immediateRun(calls), options({ isolateOnError: () => false }));
    await assert.rejects(coalescer.submit(['bad']));
    assert.deepEqual(await coalescer.submit(['after']), ['after:ok']);
    assert.deepEqual(calls, [['bad'], ['after']]);
  });
});
