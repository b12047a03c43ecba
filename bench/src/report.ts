/**
 * Output: the machine description, one JSON line plus one human line per scenario run, and the median
 * line for repeated runs.
 *
 * Design: JSON lines go to stdout as single objects without any prefix, so `grep '^{'` or a line-by-line
 * JSON reader picks them up; human lines go to stdout too unless --json-only. NaN figures become null.
 */
import os from 'node:os';
import type { ScenarioResult } from './scenarios/common.js';
import { median, round } from './stats.js';

/** The machine the benchmark runs on. */
export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  platform: string;
  node: string;
}

/** Describes this machine. */
export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: round(os.totalmem() / 1024 ** 3, 1),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
  };
}

/** Writes lines to stdout, honouring --json-only for human lines. */
export class Reporter {
  /** `jsonOnly` suppresses the human lines. */
  constructor(private readonly jsonOnly: boolean) {}

  /** Prints the machine description. */
  machine(info: MachineInfo): void {
    this.json({ machine: info });
    this.human(`machine: ${info.cpuModel}, ${info.cores} cores, ${info.memoryGiB} GiB, ${info.platform}, node ${info.node}`);
  }

  /** Prints one scenario run (or one mode of it). */
  run(result: ScenarioResult, run: number, runs: number): void {
    this.json({
      scenario: result.scenario, ...(result.mode === undefined ? {} : { mode: result.mode }), run, runs, queue: result.queue,
      ...result.figures, ...(result.skipped === undefined ? {} : { skipped: result.skipped }),
      ...(result.verdict === undefined ? {} : { verdict: result.verdict }),
      ...(result.checks === undefined ? {} : { checks: result.checks }),
    });
    this.human(runs > 1 ? `[run ${run}/${runs}] ${result.summary}` : result.summary);
  }

  /** Prints a failed scenario run. */
  failure(scenario: string, run: number, runs: number, error: string): void {
    this.json({ scenario, run, runs, error });
    this.human(`${scenario}: FAILED: ${error}`);
  }

  /** Prints the median of each figure over the successful runs of a scenario (of one mode, if it has modes). */
  median(scenario: string, results: readonly ScenarioResult[], runs: number): void {
    const mode = results[0]?.mode;
    const names = [...new Set(results.flatMap((r) => Object.keys(r.figures)))];
    const figures: Record<string, number> = {};
    for (const name of names) figures[name] = round(median(results.map((r) => r.figures[name] ?? NaN)));
    const verdicts = results.flatMap((r) => [
      ...(r.verdict === undefined ? [] : [r.verdict.ok]), ...Object.values(r.checks ?? {}),
    ]);
    this.json({
      scenario, ...(mode === undefined ? {} : { mode }), median: true, runs, succeeded: results.length, ...figures,
      ...(verdicts.length > 0 ? { allOk: verdicts.every(Boolean) } : {}),
    });
    const headline = [...Object.entries(figures).slice(0, 4), ...('rssPeakMb' in figures ? [['rssPeakMb', figures['rssPeakMb']]] : [])]
      .map(([k, v]) => `${k} ${v}`).join(', ');
    this.human(`${scenario}${mode === undefined ? '' : ` ${mode}`} median of ${results.length}/${runs} runs: ${headline}`);
  }

  private json(value: Record<string, unknown>): void {
    process.stdout.write(`${JSON.stringify(value, (_key, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v))}\n`);
  }

  private human(line: string): void {
    if (!this.jsonOnly) process.stdout.write(`${line}\n`);
  }
}
