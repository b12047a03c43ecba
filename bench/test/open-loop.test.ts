/**
 * The open-loop pacer: sends on schedule whatever the answers do, so a slow answer lowers neither the send
 * rate nor the achieved rate while the in-flight cap has room, and only a full cap shows as queueing delay
 * and a lower achieved rate. Real timers, a send callback that answers after a fixed delay.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { runOpenLoop } from '../src/scenarios/open-loop.js';
import { now, sleep } from '../src/scenarios/common.js';

const answerAfter = (ms: number) => async (): Promise<boolean> => {
  await sleep(ms);
  return true;
};

test('answers slower than the send interval do not slow the schedule while the cap has room', async () => {
  // 500 slots/s for 600 ms, every answer takes 40 ms: about 20 in flight, a closed loop of 5 would reach 125/s.
  const result = await runOpenLoop({ start: now(), durationMs: 600, rate: 500, maxInFlight: 200, send: answerAfter(40) });
  // A loaded machine fires timers late (then the due slots go at once) and may drop the last few slots.
  assert.equal(result.sent + result.unsent, 300);
  assert.ok(result.sent >= 270, `sent ${result.sent}`);
  assert.equal(result.accepted, result.sent);
  // About 20 in flight; more when late timers release slots in bursts, never the cap.
  assert.ok(result.maxInFlightSeen >= 10 && result.maxInFlightSeen < 200, `in flight ${result.maxInFlightSeen}`);
  // 300 accepted over 600 ms + the last answer's 40 ms: far above what 5 waiting senders would reach.
  assert.ok(result.achievedPerSec > 350 && result.achievedPerSec <= 500, `achieved ${result.achievedPerSec}`);
  assert.ok(result.queueDelay.percentile(50) < 20, `queueing p50 ${result.queueDelay.percentile(50)}`);
});

test('a full cap shows as queueing delay, unsent slots and a lower achieved rate', async () => {
  // 500 slots/s, answers take 50 ms, at most 5 in flight: at most 100 answers/s.
  const result = await runOpenLoop({ start: now(), durationMs: 600, rate: 500, maxInFlight: 5, send: answerAfter(50) });
  assert.equal(result.maxInFlightSeen, 5);
  assert.ok(result.sent <= 70, `sent ${result.sent}`);
  assert.equal(result.sent + result.unsent, 300);
  assert.ok(result.achievedPerSec < 130, `achieved ${result.achievedPerSec}`);
  // The later slots waited for a free place far longer than the send interval.
  assert.ok(result.queueDelay.percentile(99) > 200, `queueing p99 ${result.queueDelay.percentile(99)}`);
});

test('rejected sends are sent, not accepted', async () => {
  const result = await runOpenLoop({
    start: now(), durationMs: 200, rate: 100, maxInFlight: 10, send: async (slot) => slot % 2 === 0,
  });
  assert.equal(result.sent, 20);
  assert.equal(result.accepted, 10);
});
