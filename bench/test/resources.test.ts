/** CPU per message (bench/src/resources.ts): what every scenario reports beside its msgs/s. */
import assert from 'node:assert/strict';
import test from 'node:test';
import { cpuPerMessage } from '../src/resources.js';

test('CPU per message: the window\'s CPU µs over its messages, one decimal; none without messages or CPU', () => {
  const figures = { rssPeakMb: 100, brokerCpuPct: 50, pgCpuPct: 60, brokerCpuUs: 1_000_000, pgCpuUs: 1_500_000, benchCpuPct: 10, otherCpuPct: 0 };
  assert.deepEqual(cpuPerMessage(figures, 30_000), { brokerUsPerMsg: 33.3, pgUsPerMsg: 50 });
  assert.deepEqual(cpuPerMessage(figures, 0), { brokerUsPerMsg: NaN, pgUsPerMsg: NaN });
  assert.deepEqual(cpuPerMessage({ ...figures, pgCpuUs: NaN }, 10), { brokerUsPerMsg: 100_000, pgUsPerMsg: NaN });
});
