/**
 * The performance targets the benchmark is judged against, and their evaluation over the recorded runs.
 *
 * Design: a target names one figure of one scenario (and mode) and a bound. Throughput and latency targets
 * are judged on the median over the successful runs; "never" targets (messages lost, peak memory) on the
 * worst run, since one bad run is a real observation. The RSS target spans every scenario. Targets are
 * printed and written to docs/performance.md; they never change the exit code (the checker's verdicts and
 * the scenarios' own checks do).
 */
import type { ScenarioResult } from './scenarios/common.js';
import { median } from './stats.js';

/** One recorded scenario run (one mode of it, for scenarios with modes), or its failure. */
export interface RunRecord {
  scenario: string;
  mode: string | undefined;
  run: number;
  /** The result; null when the run threw (see `error`). */
  result: ScenarioResult | null;
  error: string | null;
}

/** A bound on one figure. */
export interface Target {
  /** The scenario, or '*' for every scenario. */
  scenario: string;
  /** For '*' targets: scenarios named with this prefix are not judged by it (they have bounds of their own). */
  except?: string;
  mode?: string;
  /** A key of ScenarioResult.figures, or `lost` for the checker verdict's lost count. */
  figure: string;
  op: '>=' | '<' | '==';
  value: number;
  /** median: judged on the median of the runs; worst: on the worst run. */
  aggregate: 'median' | 'worst';
  /** How the issue states it. */
  label: string;
}

/** The targets (2-core machine, broker + PostgreSQL + load generator on one box; medians of 3 runs). */
export const TARGETS: readonly Target[] = [
  { scenario: 'push-b1', figure: 'msgsPerSec', op: '>=', value: 3500, aggregate: 'median', label: 'push-b1 >= 3 500 msgs/s' },
  { scenario: 'push-b1', figure: 'p99Ms', op: '<', value: 50, aggregate: 'median', label: 'push-b1 p99 < 50 ms' },
  { scenario: 'push-b10', figure: 'msgsPerSec', op: '>=', value: 21_000, aggregate: 'median', label: 'push-b10 >= 21 000 msgs/s' },
  { scenario: 'push-b100', figure: 'msgsPerSec', op: '>=', value: 45_000, aggregate: 'median', label: 'push-b100 >= 45 000 msgs/s' },
  { scenario: 'drain', figure: 'msgsPerSec', op: '>=', value: 55_000, aggregate: 'median', label: 'drain >= 55 000 msgs/s' },
  { scenario: 'e2e', figure: 'pushMsgsPerSec', op: '>=', value: 9000, aggregate: 'median', label: 'e2e: >= 9 000 msgs/s pushed' },
  { scenario: 'e2e', figure: 'consumeMsgsPerSec', op: '>=', value: 9000, aggregate: 'median', label: 'e2e: consumers keep up (>= 9 000 msgs/s)' },
  { scenario: 'e2e', figure: 'e2eP99Ms', op: '<', value: 1000, aggregate: 'median', label: 'e2e p99 < 1 s' },
  { scenario: 'e2e', figure: 'lost', op: '==', value: 0, aggregate: 'worst', label: 'e2e: 0 lost' },
  { scenario: 'partitions', figure: 'dwellMaxMs', op: '<', value: 5000, aggregate: 'median', label: 'partitions (10 000): max dwell < 5 s' },
  { scenario: 'partitions', figure: 'pushMsgsPerSec', op: '>=', value: 1960, aggregate: 'median', label: 'partitions: while pushing 2 000 msgs/s (>= 98 % of the pace)' },
  { scenario: 'pop-one-partition', figure: 'pushPctOfPace', op: '>=', value: 90, aggregate: 'median', label: 'pop-one-partition (10 000, one partition a pop): >= 90 % of the pace' },
  { scenario: 'pop-one-partition', figure: 'dwellMaxMs', op: '<', value: 2000, aggregate: 'median', label: 'pop-one-partition: max dwell < 2 s' },
  { scenario: 'wake', mode: 'one-process', figure: 'p99Ms', op: '<', value: 20, aggregate: 'median', label: 'wake p99 < 20 ms in one process' },
  { scenario: 'wake', mode: 'two-process', figure: 'p99Ms', op: '<', value: 50, aggregate: 'median', label: 'wake p99 < 50 ms across two' },
  { scenario: 'scale-partitions-10k', figure: 'pushPctOfPace', op: '>=', value: 98, aggregate: 'median', label: '10 000 partitions: >= 98 % of the 2 000 msgs/s pace' },
  { scenario: 'scale-partitions-10k', figure: 'dwellMaxMs', op: '<', value: 1000, aggregate: 'median', label: '10 000 partitions: max dwell < 1 s' },
  { scenario: 'scale-partitions-100k', figure: 'pushPctOfPace', op: '>=', value: 98, aggregate: 'median', label: '100 000 partitions: >= 98 % of the pace' },
  { scenario: 'scale-partitions-100k', figure: 'dwellMaxMs', op: '<', value: 2000, aggregate: 'median', label: '100 000 partitions: max dwell < 2 s' },
  { scenario: 'scale-partitions-100k', figure: 'warmupPushS', op: '<', value: 60, aggregate: 'median', label: '100 000 partitions: warm-up push < 60 s' },
  { scenario: 'scale-parked-10000', figure: 'rssPeakMb', op: '<', value: 400, aggregate: 'worst', label: '10 000 parked long polls: RSS < 400 MB' },
  { scenario: 'scale-parked-10000', figure: 'wakeP99Ms', op: '<', value: 20, aggregate: 'median', label: '10 000 parked long polls: wake p99 < 20 ms' },
  { scenario: 'ceiling-push-b100', figure: 'brokerPctOfCeiling', op: '>=', value: 85, aggregate: 'median', label: 'push-b100 >= 85 % of the storage ceiling' },
  { scenario: 'ceiling-drain', figure: 'brokerPctOfCeiling', op: '>=', value: 85, aggregate: 'median', label: 'drain >= 85 % of the storage ceiling' },
  { scenario: 'streams', mode: 'map-sink', figure: 'msgsPerSec', op: '>=', value: 15_000, aggregate: 'median', label: 'streams map -> sink >= 15 000 msgs/s' },
  { scenario: 'streams', mode: 'window', figure: 'msgsPerSec', op: '>=', value: 10_000, aggregate: 'median', label: 'streams tumbling aggregate over 100 partitions >= 10 000 msgs/s' },
  { scenario: 'streams', mode: 'map-sink', figure: 'cycleP99Ms', op: '<', value: 50, aggregate: 'median', label: 'streams cycle p99 < 50 ms (map -> sink)' },
  { scenario: 'streams', mode: 'window', figure: 'cycleP99Ms', op: '<', value: 50, aggregate: 'median', label: 'streams cycle p99 < 50 ms (window)' },
  { scenario: 'long-lived', figure: 'pushB10MinPctOfFirst', op: '>=', value: 80, aggregate: 'worst', label: 'long-lived broker: every push-b10 round within 20 % of the first' },
  { scenario: 'long-lived', figure: 'pushB100MinPctOfFirst', op: '>=', value: 80, aggregate: 'worst', label: 'long-lived broker: every push-b100 round within 20 % of the first' },
  { scenario: 'long-lived', figure: 'drainMinPctOfFirst', op: '>=', value: 80, aggregate: 'worst', label: 'long-lived broker: every drain round within 20 % of the first' },
  // 10 000 open long polls are not a 200 MB load: scale-parked has its own bound above (run it last: RSS stays up).
  { scenario: '*', except: 'scale-parked-', figure: 'rssPeakMb', op: '<', value: 200, aggregate: 'worst', label: 'broker RSS < 200 MB during any scenario but scale-parked' },
];

/** A target's outcome. */
export interface TargetOutcome {
  target: Target;
  /** The judged value (median or worst); NaN when not measured. */
  value: number;
  /** The per-run values, in run order (NaN for runs without it). */
  perRun: number[];
  /** For '*' targets: the scenario (and mode) that gave the worst value. */
  where: string | null;
  /** 'not run': the scenario (mode) was not part of the run; 'not measured': it ran but gave no value. */
  status: 'met' | 'missed' | 'not measured' | 'not run';
  /** Relative distance to the bound in percent (positive = better than the target), NaN when undefined. */
  marginPct: number;
}

/** A figure of a result, with `lost` read from the checker's verdict. */
export function figureOf(result: ScenarioResult, figure: string): number {
  if (figure === 'lost') return result.verdict?.lost ?? NaN;
  return result.figures[figure] ?? NaN;
}

function holds(op: Target['op'], value: number, bound: number): boolean {
  return op === '>=' ? value >= bound : op === '<' ? value < bound : value === bound;
}

function worst(op: Target['op'], values: readonly number[]): number {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return NaN;
  return op === '>=' ? Math.min(...finite) : Math.max(...finite);
}

function margin(op: Target['op'], value: number, bound: number): number {
  if (!Number.isFinite(value) || bound === 0) return NaN;
  return op === '>=' ? ((value - bound) / bound) * 100 : ((bound - value) / bound) * 100;
}

/** The successful results of one scenario (and mode), in run order. */
export function resultsOf(records: readonly RunRecord[], scenario: string, mode?: string): ScenarioResult[] {
  return records
    .filter((r) => r.scenario === scenario && (mode === undefined || r.mode === mode) && r.result !== null && r.result.skipped === undefined)
    .map((r) => r.result as ScenarioResult);
}

/** Evaluates every target against the recorded runs. */
export function evaluateTargets(records: readonly RunRecord[], targets: readonly Target[] = TARGETS): TargetOutcome[] {
  return targets.map((target) => {
    let perRun: number[];
    let where: string | null = null;
    if (target.scenario === '*') {
      const measured = records.filter((r) => r.result !== null && Number.isFinite(figureOf(r.result, target.figure)) &&
        (target.except === undefined || !r.scenario.startsWith(target.except)));
      perRun = measured.map((r) => figureOf(r.result as ScenarioResult, target.figure));
      const value = worst(target.op, perRun);
      const at = measured.find((r) => figureOf(r.result as ScenarioResult, target.figure) === value);
      if (at !== undefined) where = `${at.scenario}${at.mode === undefined ? '' : ` ${at.mode}`} run ${at.run}`;
    } else {
      perRun = resultsOf(records, target.scenario, target.mode).map((r) => figureOf(r, target.figure));
    }
    const value = target.aggregate === 'median' ? median(perRun) : worst(target.op, perRun);
    const ran = records.some((r) => target.scenario === '*' ||
      (r.scenario === target.scenario && (target.mode === undefined || r.mode === undefined || r.mode === target.mode)));
    const status = !ran ? 'not run' : !Number.isFinite(value) ? 'not measured' : holds(target.op, value, target.value) ? 'met' : 'missed';
    return { target, value, perRun, where, status, marginPct: margin(target.op, value, target.value) };
  });
}
