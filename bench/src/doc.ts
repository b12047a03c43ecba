/**
 * Writes docs/performance.md from the results of a run (`--write-doc`).
 *
 * Design: a pure renderer (`renderPerformanceDoc`) over everything the run recorded, so the document is a
 * function of the run and never edited by hand. The only hand-written prose is below: the preamble (how to
 * reproduce, how to read the figures) and one line per scenario saying what it measures. Sections: run,
 * machine, PostgreSQL, targets (median and each run, met / missed with the margin), the checker's verdicts
 * and scenario checks of every run, broker resources (peak RSS, CPU split) and every figure of every
 * scenario (median of the runs and each run). The file's tail from KEPT_MARKER on is hand-written (figures
 * of scenarios run apart, with their command) and survives a rewrite.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseInfo } from './pg-info.js';
import { PG_SETTINGS } from './pg-info.js';
import type { MachineInfo } from './report.js';
import type { ScenarioResult } from './scenarios/common.js';
import { median } from './stats.js';
import { evaluateTargets, resultsOf, type RunRecord, type TargetOutcome } from './targets.js';

/** Everything the document is made of. */
export interface DocInput {
  date: Date;
  machine: MachineInfo;
  /** os.loadavg() when the run started: how busy the machine already was. */
  loadAverage: readonly number[];
  /** The command line as typed, e.g. `npm run bench -- --runs 3 --write-doc`. */
  command: string;
  runs: number;
  durationS: number;
  /** --url when benchmarking a running broker; undefined when the tool started the broker. */
  brokerUrl: string | undefined;
  /** The database's version and settings; null when the tool could not know the database. */
  database: DatabaseInfo | null;
  /** The scenarios run, in order. */
  scenarios: readonly string[];
  records: readonly RunRecord[];
  /** A remark from --doc-note (e.g. that the machine was busy). */
  note: string | undefined;
}

/** What each scenario measures, one line each. */
const SCENARIO_NOTES: Readonly<Record<string, string>> = {
  'push-b1': '50 concurrent producers push 1-item batches for --duration s over 100 partitions; accepted msgs/s and request latency.',
  'push-b10': 'as push-b1 with 10-item batches.',
  'push-b100': 'as push-b1 with 100-item batches.',
  'sql-produce': '50 sessions on the broker\'s database each run, for --duration s per mode, the outbox transaction `BEGIN; INSERT INTO queen_bench_orders ...; SELECT queen.produce_one(...); COMMIT` (a business row and one message) over 100 partitions; committed msgs/s and BEGIN-to-COMMIT latency, with the wake-up NOTIFY (wake) and with `queen.wake = off` (no-wake).',
  drain: 'pre-fill --messages (default 200 000) messages (100 partitions), then 10 wildcard consumers (batch 100, autoAck) empty the queue; exactly once required.',
  e2e: '20 producers (batch 10, 100 partitions) and 10 wildcard long-poll consumers (batch 100, explicit /ack/batch) at once for --duration s, then drain; end-to-end latency and no loss.',
  fanout: 'the e2e shape with 5 consumer groups of 3 consumers each: deliveries/s per group and in total; every group must get every message.',
  partitions: '10 000 partitions, single-item pushes paced at 2 000 msgs/s round-robin over them, 10 wildcard long-poll consumers (batch 100, no partition cap, explicit ack); dwell = receipt minus send time; max dwell is the fairness number. Then the same pace open-loop for --duration s (every slot sent on time, up to 500 in flight): open* figures are the rate the broker absorbed and the queueing delay in front of the sends, apart from each push\'s latency.',
  'pop-one-partition': 'the partitions measurement (closed and open loop) at 10 000 partitions with the pop\'s partitions parameter left out: each of the 10 consumers claims one partition a call (batch 100, explicit ack of each batch).',
  wake: '50 parked long-polls, one push each at random moments, 4 rounds; push-to-delivery latency in one broker and across two brokers on one database.',
  'scale-partitions': 'the partitions scenario at this many partitions (paced 2 000 msgs/s single-item pushes, 10 wildcard consumers); pushPctOfPace is pushed/s as a percentage of the pace.',
  'scale-backlog': 'this many retained messages bulk-filled in SQL (100 partitions), vacuumed and checkpointed (fill time includes both), then push-b10 for --duration s and 10 wildcard autoAck consumers (batch 100) for --duration s from the head of the backlog.',
  'scale-groups': 'one stream paced at 500 msgs/s (10-item batches, 100 partitions) fanned out to this many consumer groups of one long-poll consumer each (explicit ack); every group must get every message.',
  'scale-parked': 'this many idle long polls (one queue each), then 200 pushes into random ones: wake latency (push send to poll answer), broker database sessions and RSS.',
  'ceiling-push-b10': 'the broker\'s push-b10, then queen.push_messages driven directly over pg with the coalescer\'s shape (4 sessions, 13 requests of 10 items per call): the broker as a percentage of the storage ceiling.',
  'ceiling-push-b100': 'as ceiling-push-b10 with 100-item requests (1 300 items per direct call).',
  'ceiling-drain': 'the broker\'s drain (10 consumers, batch 100, autoAck) of --messages bulk-filled messages, then queen.pop_messages from 10 sessions over the same shape: the broker as a percentage of the storage ceiling.',
  'long-lived': '4 rounds of push-b10, push-b100 and drain against one broker, with ANALYZE or VACUUM (ANALYZE), alternating, and a CHECKPOINT on its database between rounds (each round ends with the message tables emptied, so they are analysed empty, as autovacuum does after a mass delete); each round as a percentage of the first.',
};

/** The scale curves: one table per family, one row per member scenario, its key figures and resources. */
const CURVES: readonly { title: string; prefix: string; figures: readonly string[] }[] = [
  { title: 'Partitions', prefix: 'scale-partitions-', figures: ['partitions', 'pushPctOfPace', 'pushMsgsPerSec', 'openPctOfPace', 'openQueueP99Ms', 'openPushP99Ms', 'dwellP50Ms', 'dwellP99Ms', 'dwellMaxMs', 'warmupPushS', 'warmupDrainS'] },
  { title: 'Retained backlog', prefix: 'scale-backlog-', figures: ['retained', 'fillS', 'pushMsgsPerSec', 'pushP99Ms', 'popMsgsPerSec'] },
  { title: 'Consumer groups', prefix: 'scale-groups-', figures: ['groups', 'deliveriesPerSec', 'demandPerSec', 'e2eP50Ms', 'e2eP99Ms', 'tailS'] },
  { title: 'Parked long polls', prefix: 'scale-parked-', figures: ['parkedPolls', 'wakeP50Ms', 'wakeP99Ms', 'wakeMaxMs', 'dbSessionsMax'] },
  {
    title: 'Storage ceiling', prefix: 'ceiling-',
    figures: ['brokerMsgsPerSec', 'ceilingMsgsPerSec', 'brokerPctOfCeiling', 'brokerPhaseBusyPct', 'ceilingPhaseBusyPct',
      'brokerPhasePgUsPerMsg', 'ceilingPhasePgUsPerMsg', 'brokerPhaseBrokerUsPerMsg', 'brokerPhaseBenchUsPerMsg', 'ceilingPhaseBenchUsPerMsg'],
  },
];

const CURVE_RESOURCES = ['brokerUsPerMsg', 'pgUsPerMsg', 'rssPeakMb', 'brokerCpuPct', 'pgCpuPct', 'benchCpuPct', 'otherCpuPct'];

function curveSections(input: DocInput): string[] {
  const lines: string[] = [];
  for (const curve of CURVES) {
    const members = input.scenarios.filter((name) => name.startsWith(curve.prefix));
    if (members.length === 0) continue;
    const columns = [...curve.figures, ...CURVE_RESOURCES];
    const rows = members.map((name) => {
      const results = resultsOf(input.records, name, undefined);
      return [name, ...columns.map((figure) => num(median(results.map((r) => r.figures[figure] ?? NaN))))];
    });
    lines.push(`### ${curve.title}`, '', ...table(['scenario', ...columns], rows), '');
  }
  return lines.length === 0 ? [] : ['## Scale curves', '', 'Medians of the runs; resources as in "Broker resources" below.', '', ...lines];
}

function num(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  const rounded = Math.abs(value) >= 100 ? Math.round(value) : Math.round(value * 100) / 100;
  return rounded.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

function row(cells: readonly string[]): string {
  return `| ${cells.map((c) => c.replace(/\|/g, '\\|').replace(/\n/g, ' ')).join(' | ')} |`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [row(header), row(header.map(() => '---')), ...rows.map(row)];
}

function scenarioKeys(input: DocInput): { scenario: string; mode: string | undefined }[] {
  const keys: { scenario: string; mode: string | undefined }[] = [];
  for (const scenario of input.scenarios) {
    const modes = [...new Set(input.records.filter((r) => r.scenario === scenario).map((r) => r.mode))];
    for (const mode of modes.length > 0 ? modes : [undefined]) keys.push({ scenario, mode });
  }
  return keys;
}

function label(scenario: string, mode: string | undefined): string {
  return mode === undefined ? scenario : `${scenario} (${mode})`;
}

function targetRows(outcomes: readonly TargetOutcome[]): string[][] {
  return outcomes.map((o) => {
    const t = o.target;
    const scope = t.scenario === '*' ? `every scenario${o.where === null ? '' : ` (worst: ${o.where})`}` : label(t.scenario, t.mode);
    const bound = `${t.figure} ${t.op} ${num(t.value)}`;
    const judged = t.aggregate === 'median' ? `median ${num(o.value)}` : `worst ${num(o.value)}`;
    const perRun = t.scenario === '*' ? `${o.perRun.length} scenario runs` : o.perRun.map(num).join(', ') || '–';
    const status = o.status === 'missed' ? '**missed**' : o.status;
    const margin = Number.isFinite(o.marginPct) && t.value !== 0
      ? `${o.marginPct >= 0 ? '+' : ''}${o.marginPct.toFixed(0)} %` : '';
    return [t.label, scope, bound, judged, perRun, status, margin];
  });
}

function verdictRows(input: DocInput): string[][] {
  const rows: string[][] = [];
  for (const record of input.records) {
    const name = label(record.scenario, record.mode);
    if (record.result === null) {
      rows.push([name, String(record.run), `FAILED: ${record.error ?? 'unknown error'}`, '', '', '', '', '', '', '']);
      continue;
    }
    const result = record.result;
    if (result.skipped !== undefined) {
      rows.push([name, String(record.run), `skipped: ${result.skipped}`, '', '', '', '', '', '', '']);
      continue;
    }
    const checks = Object.entries(result.checks ?? {}).map(([k, v]) => `${k} ${v ? 'ok' : 'FAILED'}`).join(', ');
    const v = result.verdict;
    if (v === undefined && checks === '') continue;
    rows.push([
      name, String(record.run), v === undefined ? '–' : v.ok ? 'OK' : '**FAILED**',
      num(v?.pushed), num(v?.delivered), num(v?.lost), num(v?.duplicates), num(v?.skipped), num(v?.reordered), checks || '–',
    ]);
  }
  return rows;
}

function figureTable(results: readonly (ScenarioResult | null)[], runs: readonly number[]): string[] {
  const present = results.filter((r): r is ScenarioResult => r !== null && r.skipped === undefined);
  const names = [...new Set(present.flatMap((r) => Object.keys(r.figures)))];
  const header = ['figure', ...(runs.length > 1 ? ['median'] : []), ...runs.map((run) => `run ${run}`)];
  const rows = names.map((name) => {
    const values = results.map((r) => (r === null || r.skipped !== undefined ? NaN : r.figures[name] ?? NaN));
    return [name, ...(runs.length > 1 ? [num(median(values))] : []), ...values.map(num)];
  });
  return table(header, rows);
}

/** The msgs/s figure of a scenario's row in "Broker resources": the first of these it reports. */
const RATE_FIGURES = ['msgsPerSec', 'pushMsgsPerSec', 'brokerMsgsPerSec', 'deliveriesPerSec'];

function resourceRows(input: DocInput): string[][] {
  return scenarioKeys(input).map(({ scenario, mode }) => {
    const results = resultsOf(input.records, scenario, mode);
    const values = (figure: string): number[] => results.map((r) => r.figures[figure] ?? NaN);
    const rss = values('rssPeakMb').filter(Number.isFinite);
    const rate = RATE_FIGURES.find((figure) => results.some((r) => r.figures[figure] !== undefined));
    return [
      label(scenario, mode), num(rate === undefined ? NaN : median(values(rate))), num(median(values('brokerUsPerMsg'))),
      num(median(values('pgUsPerMsg'))), num(median(values('brokerUsPerMsg').map((b, i) => b + (values('pgUsPerMsg')[i] ?? NaN)))),
      rss.length > 0 ? num(Math.max(...rss)) : '–', num(median(values('brokerCpuPct'))),
      num(median(values('pgCpuPct'))), num(median(values('benchCpuPct'))), num(median(values('otherCpuPct'))),
    ];
  });
}

/** Renders the document. */
export function renderPerformanceDoc(input: DocInput): string {
  const outcomes = evaluateTargets(input.records);
  const measured = outcomes.filter((o) => o.status === 'met' || o.status === 'missed');
  const missed = outcomes.filter((o) => o.status === 'missed');
  const m = input.machine;
  const lines: string[] = [
    '# Performance',
    '',
    '<!-- Generated by `npm run bench -- --write-doc` (bench/src/doc.ts). Do not edit by hand (but for the last section, from its marker on): re-run the benchmark. -->',
    '',
    'Every performance and durability claim about Queen comes from `npm run bench` (the tool in `bench/`), and this',
    'file holds the results of its last run with `--write-doc`. To reproduce on your machine:',
    '',
    '```sh',
    'npm ci',
    'npm run bench -- --runs 3 --write-doc                                   # the default scenarios',
    'npm run bench -- push-b1 push-b10 push-b100 drain e2e fanout partitions pop-one-partition wake streams \\',
    '  scale-partitions scale-backlog scale-groups ceiling scale-parked --runs 3 --write-doc   # everything (scale-parked last: RSS stays up)',
    '```',
    '',
    '`npm run bench` builds the workspace; then, without `--url`, the tool starts `packages/server/dist/main.js` on a',
    'fresh embedded PostgreSQL (or on the database named by `PG_HOST`/`DATABASE_URL`), runs the scenarios one after the',
    'other against that one broker, and stops it. The targets assume a 2-core machine with the broker, PostgreSQL and',
    'the load generator on the same box; figures are medians of the runs unless a target says "worst". Every message a',
    'consuming scenario pushes goes through the no-loss checker (lost, skipped, reordered, duplicate deliveries per',
    'consumer group). CPU figures are percent of one core over the scenario (200 % = both cores of a 2-core box), from',
    '/proc: "PostgreSQL" is the embedded server below the broker and its backends (or an external server on this host), "other processes"',
    'is the rest of the machine\'s busy CPU: work that competed with the benchmark (noise; ~0 on a quiet machine).',
    '',
  ];
  if (input.note !== undefined) lines.push(`> **Note on this run:** ${input.note}`, '');

  lines.push('## Run', '', ...table(['', ''], [
    ['date', input.date.toISOString()],
    ['command', `\`${input.command}\``],
    ['runs per scenario', String(input.runs)],
    ['load duration', `${input.durationS} s (push-*, e2e, fanout, partitions)`],
    ['broker', input.brokerUrl === undefined ? 'started by the tool (packages/server/dist/main.js, default settings)' : `running broker at ${input.brokerUrl}`],
    ['scenarios', input.scenarios.join(', ')],
    ['competing CPU (other processes, median over all scenario runs)', `${num(median(input.records
      .map((r) => r.result?.figures['otherCpuPct'] ?? NaN)))} % of one core`],
    ['targets', `${measured.length - missed.length} of ${measured.length} measured targets met` +
      `${missed.length > 0 ? ` (missed: ${missed.map((o) => o.target.label).join('; ')})` : ''}`],
  ]), '');

  lines.push('## Machine', '', ...table(['', ''], [
    ['CPU', `${m.cpuModel}, ${m.cores} cores`],
    ['memory', `${m.memoryGiB} GiB`],
    ['OS', m.platform],
    ['Node.js', m.node],
    ['load average at start (1, 5, 15 min)', input.loadAverage.map((v) => v.toFixed(2)).join(', ')],
  ]), '');

  lines.push('## PostgreSQL', '');
  const db = input.database;
  if (db === null) {
    lines.push('Unknown: the broker was given with --url and neither PG_HOST nor DATABASE_URL was set.', '');
  } else if (!db.ok) {
    lines.push(`Could not be read from ${db.source}: ${db.error}`, '');
  } else {
    lines.push(...table(['', ''], [
      ['database', db.source],
      ['version', db.version],
      ...PG_SETTINGS.map((name) => [name, db.settings[name] ?? '?']),
    ]), '');
  }

  lines.push('## Targets', '',
    'Judged on the median of the runs (or the worst run where it says so); the margin is how far the judged value is',
    'from the bound (positive: better than the target).', '',
    ...table(['target', 'scenario', 'bound', 'judged', 'runs', 'result', 'margin'], targetRows(outcomes)), '');

  lines.push('## Checker verdicts', '',
    'Every run of every consuming scenario (counts summed over consumer groups; fanout lists each group in its figures).', '',
    ...table(['scenario', 'run', 'verdict', 'pushed', 'delivered', 'lost', 'duplicates', 'skipped', 'reordered', 'checks'],
      verdictRows(input)), '');

  lines.push(...curveSections(input));

  lines.push('## Broker resources', '',
    'CPU µs per message (the broker\'s processes, and PostgreSQL: the embedded postmaster and its backends, or an external',
    'one on this host; utime + stime over the measured window divided by its messages; drain: the drain phase alone)',
    'beside msgs/s, then peak RSS of the broker process (worst run) and CPU in percent of one core during each scenario',
    '(medians of the runs). CPU per message holds across loads and machines far better than msgs/s.', '',
    ...table(['scenario', 'msgs/s', 'broker µs/msg', 'PostgreSQL µs/msg', 'total µs/msg', 'broker RSS peak (MB)', 'broker CPU %', 'PostgreSQL CPU %', 'bench CPU %', 'other processes CPU %'],
      resourceRows(input)), '');

  lines.push('## Figures', '');
  for (const { scenario, mode } of scenarioKeys(input)) {
    const records = input.records.filter((r) => r.scenario === scenario && r.mode === mode);
    lines.push(`### ${label(scenario, mode)}`, '');
    const note = SCENARIO_NOTES[scenario] ?? SCENARIO_NOTES[scenario.replace(/-[^-]+$/, '')];
    if (note !== undefined) lines.push(note, '');
    const failures = records.filter((r) => r.result === null);
    for (const failure of failures) lines.push(`Run ${failure.run} failed: ${failure.error ?? 'unknown error'}`, '');
    const ok = records.filter((r) => r.result !== null);
    if (ok.length === 0) continue;
    lines.push(...figureTable(ok.map((r) => r.result), ok.map((r) => r.run)), '');
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The line from which the document is kept as it is by `--write-doc`: measurements made apart from the run the
 * rest of the file reports (a comparison of two scenarios run alone, with its own command and date).
 */
export const KEPT_MARKER = '<!-- Measured apart from the run above: kept as written by --write-doc. -->';

/** Renders and writes the document to `file` (creating its directory), keeping its part from KEPT_MARKER on. */
export function writePerformanceDoc(file: string, input: DocInput): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const kept = previous.indexOf(KEPT_MARKER);
  fs.writeFileSync(file, renderPerformanceDoc(input) + (kept < 0 ? '' : `\n${previous.slice(kept)}`));
}
