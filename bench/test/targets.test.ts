/**
 * Unit tests of the target evaluation and the performance document: medians and worst runs are judged as
 * documented, scenarios that did not run are marked so, and the document carries every figure; a rewrite
 * keeps the hand-written tail from its marker on.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KEPT_MARKER, renderPerformanceDoc, writePerformanceDoc, type DocInput } from '../src/doc.js';
import type { ScenarioResult } from '../src/scenarios/common.js';
import { evaluateTargets, type RunRecord } from '../src/targets.js';

function record(scenario: string, run: number, figures: Record<string, number>, extra: Partial<ScenarioResult> = {}): RunRecord {
  return {
    scenario, mode: extra.mode, run, error: null,
    result: { scenario, queue: 'q', figures, summary: `${scenario} run ${run}`, ...extra },
  };
}

const verdict = (lost: number): NonNullable<ScenarioResult['verdict']> => ({
  pushed: 10, delivered: 10 - lost, lost, duplicates: 0, skipped: 0, reordered: 0, unknown: 0, ok: lost === 0,
  examples: { lost: [], duplicates: [], skipped: [], reordered: [], unknown: [] },
});

const RECORDS: RunRecord[] = [
  record('push-b1', 1, { msgsPerSec: 3000, p99Ms: 40, rssPeakMb: 120, brokerUsPerMsg: 70, pgUsPerMsg: 100 }),
  record('push-b1', 2, { msgsPerSec: 3600, p99Ms: 60, rssPeakMb: 150, brokerUsPerMsg: 60, pgUsPerMsg: 110 }),
  record('push-b1', 3, { msgsPerSec: 3700, p99Ms: 45, rssPeakMb: 130, brokerUsPerMsg: 65, pgUsPerMsg: 90 }),
  record('e2e', 1, { pushMsgsPerSec: 9500, consumeMsgsPerSec: 9400, e2eP99Ms: 300, rssPeakMb: 210 }, { verdict: verdict(0) }),
  record('e2e', 2, { pushMsgsPerSec: 9100, consumeMsgsPerSec: 9000, e2eP99Ms: 500, rssPeakMb: 190 }, { verdict: verdict(2) }),
  { scenario: 'drain', mode: undefined, run: 1, result: null, error: 'Error: boom' },
  record('scale-parked-10000', 1, { wakeP99Ms: 15, rssPeakMb: 350 }),
];

test('targets are judged on the median, "never" targets on the worst run', () => {
  const outcomes = evaluateTargets(RECORDS);
  const byLabel = new Map(outcomes.map((o) => [o.target.label, o]));
  const b1 = byLabel.get('push-b1 >= 3 500 msgs/s');
  assert.equal(b1?.value, 3600);
  assert.equal(b1?.status, 'met');
  assert.deepEqual(b1?.perRun, [3000, 3600, 3700]);
  assert.equal(byLabel.get('push-b1 p99 < 50 ms')?.status, 'met');
  const lost = byLabel.get('e2e: 0 lost');
  assert.equal(lost?.value, 2);
  assert.equal(lost?.status, 'missed');
  const rss = byLabel.get('broker RSS < 200 MB during any scenario but scale-parked');
  assert.equal(rss?.value, 210, 'scale-parked (350 MB) is judged by its own bound');
  assert.equal(byLabel.get('10 000 parked long polls: RSS < 400 MB')?.status, 'met');
  assert.equal(rss?.status, 'missed');
  assert.equal(rss?.where, 'e2e run 1');
  assert.equal(byLabel.get('drain >= 55 000 msgs/s')?.status, 'not measured');
  assert.equal(byLabel.get('push-b10 >= 21 000 msgs/s')?.status, 'not run');
  assert.equal(byLabel.get('wake p99 < 20 ms in one process')?.status, 'not run');
  const p99 = byLabel.get('e2e p99 < 1 s');
  assert.equal(p99?.value, 400);
  assert.equal(Math.round(p99?.marginPct ?? NaN), 60);
});

const docInput = (): DocInput => ({
  date: new Date('2026-01-02T03:04:05Z'),
  machine: { cpuModel: 'Test CPU', cores: 2, memoryGiB: 4, platform: 'linux', node: 'v20.0.0' },
  loadAverage: [0.5, 0.25, 0.1],
  command: 'npm run bench -- --runs 3 --write-doc',
  runs: 3, durationS: 10, brokerUrl: undefined,
  database: { ok: true, source: 'embedded', version: 'PostgreSQL 17', settings: { synchronous_commit: 'on' } },
  scenarios: ['push-b1', 'e2e', 'drain'], records: RECORDS, note: 'busy machine',
});

test('the document lists the run, every figure of every run and the failures', () => {
  const doc = renderPerformanceDoc(docInput());
  assert.match(doc, /^# Performance/);
  assert.match(doc, /npm run bench -- --runs 3 --write-doc/);
  assert.match(doc, /busy machine/);
  assert.match(doc, /\| synchronous_commit \| on \|/);
  assert.match(doc, /\| msgsPerSec \| 3,600 \| 3,000 \| 3,600 \| 3,700 \|/);
  assert.match(doc, /\| e2e \| 2 \| \*\*FAILED\*\* \|/);
  assert.match(doc, /Run 1 failed: Error: boom/);
  assert.match(doc, /\*\*missed\*\*/);
  // CPU per message beside msgs/s (medians of the runs; total per run, then its median).
  assert.match(doc, /\| scenario \| msgs\/s \| broker µs\/msg \| PostgreSQL µs\/msg \| total µs\/msg \|/);
  assert.match(doc, /\| push-b1 \| 3,600 \| 65 \| 100 \| 170 \|/);
  assert.match(doc, /\| e2e \| 9,300 \| – \| – \| – \|/);
});

test('a rewrite replaces the generated part and keeps the hand-written tail from its marker on', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-doc-'));
  try {
    const file = path.join(dir, 'performance.md');
    writePerformanceDoc(file, docInput());
    assert.equal(fs.readFileSync(file, 'utf8'), renderPerformanceDoc(docInput()), 'no marker: nothing kept');
    const tail = `${KEPT_MARKER}\n\n## Measured apart\n\nhand-written figures\n`;
    fs.writeFileSync(file, `# Performance\n\nold generated figures\n\n${tail}`);
    writePerformanceDoc(file, docInput());
    const doc = fs.readFileSync(file, 'utf8');
    assert.equal(doc, `${renderPerformanceDoc(docInput())}\n${tail}`);
    assert.doesNotMatch(doc, /old generated figures/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
