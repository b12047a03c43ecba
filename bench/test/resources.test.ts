/** CPU per message (bench/src/resources.ts): what every scenario reports beside its msgs/s. */
import assert from 'node:assert/strict';
import test from 'node:test';
import { spawn } from 'node:child_process';
import { ResourceSampler, cpuPerMessage, nodeCpuPerMessage, processCpuUs, processRunUs } from '../src/resources.js';

test('CPU per message: the window\'s CPU µs over its messages, one decimal; none without messages or CPU', () => {
  const figures = { rssPeakMb: 100, brokerCpuPct: 50, pgCpuPct: 60, brokerCpuUs: 1_000_000, pgCpuUs: 1_500_000, benchCpuPct: 10, otherCpuPct: 0 };
  assert.deepEqual(cpuPerMessage(figures, 30_000), { brokerUsPerMsg: 33.3, pgUsPerMsg: 50 });
  assert.deepEqual(cpuPerMessage(figures, 0), { brokerUsPerMsg: NaN, pgUsPerMsg: NaN });
  assert.deepEqual(cpuPerMessage({ ...figures, pgCpuUs: NaN }, 10), { brokerUsPerMsg: 100_000, pgUsPerMsg: NaN });
});

test('PostgreSQL nodes: each postmaster\'s process tree is counted for its node, and their sum is PostgreSQL\'s CPU', async () => {
  const busy = (ms: number) => spawn(process.execPath, ['-e', `const end = Date.now() + ${ms}; while (Date.now() < end);`]);
  const heavy = busy(1500);
  const light = busy(300);
  const sampler = new ResourceSampler(() => [], () => new Map([[heavy.pid!, 'worker-a'], [light.pid!, 'worker-b']]));
  sampler.start();
  await Promise.all([heavy, light].map((child) => new Promise((resolve) => child.on('exit', resolve))));
  const figures = sampler.stop();
  const nodes = sampler.nodeCpuUs();
  assert.deepEqual([...nodes.keys()].sort(), ['worker-a', 'worker-b']);
  assert.ok(nodes.get('worker-a')! > nodes.get('worker-b')!, `the busier node used more CPU: ${JSON.stringify([...nodes])}`);
  assert.equal(figures.pgCpuUs, nodes.get('worker-a')! + nodes.get('worker-b')!);
  assert.equal(figures.brokerCpuUs, 0);
  assert.deepEqual(nodeCpuPerMessage(new Map([['coordinator', 760_000], ['127.0.0.1:57402', 1_760_000]]), 10_000), { 'pgUsPerMsg:coordinator': 76, 'pgUsPerMsg:127.0.0.1:57402': 176 });
});

test('run time from schedstat: a busy process\'s CPU in µs, agreeing with /proc\'s ticks; NaN once it is gone', async () => {
  // Burns 0.4 s of its own CPU (however loaded the machine is), says so, then idles until killed.
  const child = spawn(process.execPath, ['-e', 'while (process.cpuUsage().user < 400_000); console.log("done"); setInterval(() => {}, 1000);']);
  await new Promise((resolve) => child.stdout.once('data', resolve));
  const run = processRunUs(child.pid!);
  const ticks = processCpuUs(child.pid!);
  assert.ok(run > 400_000, `the child ran at least 0.4 s of CPU: ${run} µs`);
  // Ticks are 10 ms and sampled; the two clocks agree within a few ticks.
  assert.ok(Math.abs(run - ticks) < 50_000 + ticks * 0.1, `schedstat ${run} µs against ticks ${ticks} µs`);
  assert.ok(!Number.isInteger(run / 10_000), 'resolved below a tick');
  child.kill();
  await new Promise((resolve) => child.on('exit', resolve));
  assert.ok(Number.isNaN(processRunUs(child.pid!)));
});
