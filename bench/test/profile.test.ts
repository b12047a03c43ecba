/**
 * The --profile summary (bench/src/profile.ts): samples are charged to the innermost frame a stage rule
 * recognises (a builtin without a URL inherits its caller's stage), to the route module above them, and only
 * inside the measured windows; the table scales the shares to the CPU time read from /proc.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { renderProfileTable, summarizeProfile, type CpuProfile } from '../src/profile.js';

const DIST = 'file:///repo/packages/server/dist';
const frame = (id: number, functionName: string, url: string, children: number[] = []) =>
  ({ id, callFrame: { functionName, url }, children });

// root -> dispatch (server.js) -> handle (routes/push.js) -> parseJsonObject (body.js) -> JSON.parse (builtin)
//                                                         -> query (pg)
//      -> (idle), (garbage collector), writev (native, under node:net)
const PROFILE: CpuProfile = {
  nodes: [
    frame(1, '(root)', '', [2, 7, 8, 9]),
    frame(2, 'dispatch', `${DIST}/http/server.js`, [3]),
    frame(3, 'handle', `${DIST}/http/routes/push.js`, [4, 6]),
    frame(4, 'parseJsonObject', `${DIST}/http/body.js`, [5]),
    frame(5, 'parse', ''),
    frame(6, 'query', 'file:///repo/node_modules/pg/lib/client.js'),
    frame(7, '(idle)', ''),
    frame(8, '(garbage collector)', ''),
    frame(9, 'writeGeneric', 'node:net', [10]),
    frame(10, 'writev', ''),
  ],
  startTime: 1_000,
  // Each delta is charged to its own sample: times 1 010, 1 030, 1 060, 1 100, 1 150, 1 210, 1 280.
  samples: [5, 5, 6, 7, 8, 10, 3],
  timeDeltas: [10, 20, 30, 40, 50, 60, 70],
};

test('samples go to the innermost recognised frame and the route above them', () => {
  const summary = summarizeProfile(PROFILE, []);
  assert.equal(summary.byStage['body read + JSON parse'], 30); // JSON.parse inherits parseJsonObject's stage
  assert.equal(summary.byStage['store + pg driver'], 30);
  assert.equal(summary.byStage.idle, 40);
  assert.equal(summary.byStage.GC, 50);
  assert.equal(summary.byStage['socket I/O'], 60);
  assert.equal(summary.byStage.validation, 70); // handle in routes/ is validation
  assert.deepEqual(summary.byRoute, { push: 130, none: 110 });
  assert.equal(summary.windowUs, 280);
});

test('only samples inside a window count', () => {
  const summary = summarizeProfile(PROFILE, [{ startUs: 1_050, endUs: 1_160 }]);
  assert.equal(summary.byStage['store + pg driver'], 30); // 1 060
  assert.equal(summary.byStage.idle, 40); // 1 100
  assert.equal(summary.byStage.GC, 50); // 1 150
  assert.equal(summary.byStage['body read + JSON parse'], 0);
  assert.equal(summary.windowUs, 110);
});

test('the table scales the sampled shares to the CPU time measured', () => {
  const summary = summarizeProfile(PROFILE, []);
  // 240 µs sampled busy; the process really used 480: every stage doubles. 2 requests, 4 messages.
  const table = renderProfileTable('t', summary, 480, 2, 4);
  assert.match(table, /\| socket I\/O \| 60\.0 \| 30\.0 \| 25\.0 % \|/);
  assert.match(table, /\| \*\*total\*\* \| 240\.0 \| 120\.0 \| 100 % \|/);
});
