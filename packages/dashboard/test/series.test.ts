/** The pure helpers of the dashboard: time-series hygiene (series.ts) and number formats (format.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fmtAxis, fmtCount, fmtDuration, fmtRate } from '../src/format.js';
import { frameFrom, latest } from '../src/series.js';

const MIN = 60_000;
const at = (m: number): string => new Date(Date.UTC(2026, 0, 1, 10, m)).toISOString();

describe('frameFrom (docs/dashboard.md)', () => {
  test('drops the open bucket, sums rows of one bucket, keeps nulls as gaps', () => {
    const now = Date.UTC(2026, 0, 1, 10, 2, 30); // the 10:02 bucket is still open
    const rows = [
      { timestamp: at(0), v: 1 }, { timestamp: at(0), v: 2 }, { timestamp: at(1), v: null }, { timestamp: at(2), v: 9 },
    ];
    const f = frameFrom(rows, MIN, ['v'], (r) => [r.v], now);
    assert.deepEqual(f.x, [Date.parse(at(0)) / 1000, Date.parse(at(1)) / 1000]);
    assert.deepEqual(f.series[0]!.values, [3, null]);
  });

  test('a bucket without a row between two reported ones is a gap', () => {
    const f = frameFrom([{ timestamp: at(0), v: 5 }, { timestamp: at(3), v: 7 }], MIN, ['v'], (r) => [r.v], Date.UTC(2026, 0, 2));
    assert.equal(f.x.length, 4);
    assert.deepEqual(f.series[0]!.values, [5, null, null, 7]);
    assert.equal(latest(f.series[0]!.values), 7);
    assert.equal(latest([3, null]), 3);
    assert.equal(latest([null, null]), null);
  });
});

describe('formats', () => {
  test('counts, rates and durations', () => {
    assert.equal(fmtCount(999_999), '999,999');
    assert.equal(fmtCount(1_250_000), '1.3M');
    assert.equal(fmtCount(2_000_000_000), '2.0B');
    assert.equal(fmtCount(null), '–');
    assert.deepEqual([fmtRate(3.14159), fmtRate(42.42), fmtRate(420.4), fmtRate(1234)], ['3.14', '42.4', '420', '1.2k']);
    assert.deepEqual([fmtDuration(45), fmtDuration(200), fmtDuration(7500), fmtDuration(100_800)], ['45s', '3m 20s', '2h 5m', '1d 4h']);
  });
});

describe('fmtAxis: chart axis labels fit the axis and carry the unit', () => {
  test('latencies in ms turn to seconds from 1 000 ms; counts and rates are shortened', () => {
    assert.deepEqual([0, 250, 950, 1000, 1500, 12_000].map((v) => fmtAxis(v, ' ms')), ['0 ms', '250 ms', '950 ms', '1 s', '1.5 s', '12 s']);
    assert.deepEqual([0.25, 5, 950, 12_000, 3_200_000].map((v) => fmtAxis(v, ' /s')), ['0.25 /s', '5 /s', '950 /s', '12k /s', '3.2M /s']);
    assert.equal(fmtAxis(45_000), '45k');
  });
});
