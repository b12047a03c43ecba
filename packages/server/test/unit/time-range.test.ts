/**
 * Time ranges and bucket sizes of the status and analytics routes (src/core/time-range.ts, docs/api.md 7.10):
 * range <= 2 h -> 1 min; <= 24 h -> 5 min; <= 7 d -> 60 min; else 1440; defaults, epoch alignment, the cap
 * on the number of points, and the `interval` of status/analytics.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_POINTS, analyticsInterval, bucketCount, bucketMinutesFor, timeRange, wireRange } from '../../src/core/time-range.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-08-02T09:17:42.123Z');

describe('bucket size by range (docs/api.md 7.10)', () => {
  const cases: Array<[string, number, number]> = [
    ['1 minute', MINUTE, 1],
    ['exactly 2 h', 2 * HOUR, 1],
    ['2 h + 1 ms', 2 * HOUR + 1, 5],
    ['exactly 24 h', DAY, 5],
    ['24 h + 1 ms', DAY + 1, 60],
    ['exactly 7 d', 7 * DAY, 60],
    ['7 d + 1 ms', 7 * DAY + 1, 1440],
    ['a year', 365 * DAY, 1440],
    ['an empty range', 0, 1],
  ];
  for (const [name, span, minutes] of cases) test(`${name} -> ${minutes} min`, () => assert.equal(bucketMinutesFor(span), minutes));
});

describe('timeRange', () => {
  test('defaults: to = now, from = to - the default span; the bucket follows the span', () => {
    const range = timeRange({ from: null, to: null }, { defaultSpanMs: HOUR, now: NOW });
    assert.equal(range.to.getTime(), NOW);
    assert.equal(range.from.getTime(), NOW - HOUR);
    assert.equal(range.bucketMinutes, 1);
    assert.deepEqual(wireRange(range), { from: '2026-08-02T08:17:42.123Z', to: '2026-08-02T09:17:42.123Z' });
  });

  test('explicit ISO-8601 bounds with offsets are read; unparsable ones take the defaults', () => {
    const range = timeRange({ from: '2026-08-01T00:00:00+02:00', to: '2026-08-02T00:00:00Z' }, { defaultSpanMs: HOUR, now: NOW });
    assert.equal(range.from.toISOString(), '2026-07-31T22:00:00.000Z');
    assert.equal(range.bucketMinutes, 60); // 26 h
    const fallback = timeRange({ from: 'yesterday', to: '2026-13-01T00:00:00Z' }, { defaultSpanMs: DAY, now: NOW });
    assert.equal(fallback.to.getTime(), NOW);
    assert.equal(fallback.from.getTime(), NOW - DAY);
  });

  test('start is the epoch-aligned start of the bucket holding from; day buckets start at 00:00 UTC', () => {
    const minutes = timeRange({ from: '2026-08-02T08:17:42.123Z', to: null }, { defaultSpanMs: HOUR, now: NOW });
    assert.equal(minutes.start.toISOString(), '2026-08-02T08:17:00.000Z');
    const fives = timeRange({ from: '2026-08-01T20:03:00Z', to: null }, { defaultSpanMs: HOUR, now: NOW });
    assert.equal(fives.bucketMinutes, 5);
    assert.equal(fives.start.toISOString(), '2026-08-01T20:00:00.000Z');
    const days = timeRange({ from: '2026-06-01T13:00:00Z', to: null }, { defaultSpanMs: HOUR, now: NOW });
    assert.equal(days.bucketMinutes, 1440);
    assert.equal(days.start.toISOString(), '2026-06-01T00:00:00.000Z');
  });

  test('a fixed bucket size wins over the span rule', () => {
    const range = timeRange({ from: null, to: null }, { defaultSpanMs: DAY, bucketMinutes: 60, now: NOW });
    assert.equal(range.bucketMinutes, 60);
    assert.equal(range.start.toISOString(), '2026-08-01T09:00:00.000Z');
    assert.equal(bucketCount(range), 25);
  });

  test('bucketCount counts every bucket from start to the one holding to', () => {
    assert.equal(bucketCount(timeRange({ from: null, to: null }, { defaultSpanMs: HOUR, now: NOW })), 61);
    assert.equal(bucketCount(timeRange({ from: '2026-08-02T09:00:00Z', to: '2026-08-02T09:00:00Z' }, { defaultSpanMs: HOUR })), 1);
  });

  test('from after to: kept, and the series is empty', () => {
    const range = timeRange({ from: '2026-08-02T10:00:00Z', to: '2026-08-02T09:00:00Z' }, { defaultSpanMs: HOUR });
    assert.equal(range.from.toISOString(), '2026-08-02T10:00:00.000Z');
    assert.equal(bucketCount(range), 0);
  });

  test('a series longer than MAX_POINTS keeps its to and moves its from forward', () => {
    const range = timeRange({ from: '2020-01-01T00:00:00Z', to: null }, { defaultSpanMs: HOUR, bucketMinutes: 1, now: NOW });
    assert.equal(range.to.getTime(), NOW);
    assert.equal(bucketCount(range), MAX_POINTS);
    assert.equal(range.from.getTime(), range.start.getTime());
  });
});

describe('status/analytics interval', () => {
  test('minute, hour (default, also for unknown values) and day', () => {
    assert.deepEqual(analyticsInterval('minute'), { interval: 'minute', bucketMinutes: 1 });
    assert.deepEqual(analyticsInterval('hour'), { interval: 'hour', bucketMinutes: 60 });
    assert.deepEqual(analyticsInterval('day'), { interval: 'day', bucketMinutes: 1440 });
    assert.deepEqual(analyticsInterval(null), { interval: 'hour', bucketMinutes: 60 });
    assert.deepEqual(analyticsInterval('week'), { interval: 'hour', bucketMinutes: 60 });
  });
});
