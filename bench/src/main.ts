/**
 * The benchmark tool's entry point: `node bench/dist/main.js [scenario ...] [--url URL] [--duration S]
 * [--runs N] [--json-only] ...` (see cli.ts for every flag).
 *
 * Design: parse the command line, print the machine, start a local broker unless --url was given, run the
 * chosen scenarios sequentially (each --runs times, with a median line when repeated), then stop the broker.
 * A scenario that throws is reported and the next one runs. The exit code is 1 when any scenario failed,
 * any checker verdict was not ok or any scenario check failed, 2 for a bad command line, 130 on Ctrl-C.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBroker, type BrokerHandle } from './broker-process.js';
import { parseCli, usage, type CliOptions } from './cli.js';
import { QueenClient } from './http.js';
import { Reporter, machineInfo } from './report.js';
import { describeError, type ScenarioContext, type ScenarioResult } from './scenarios/common.js';
import { SCENARIOS } from './scenarios/index.js';

/** The repository root: bench/dist/main.js -> ../.. */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Enough connections for the largest scenario (50 pushers) plus headroom for long-polls and acks. */
const CONNECTIONS = 64;

async function runAll(options: CliOptions, reporter: Reporter, log: (line: string) => void,
  onBroker: (broker: BrokerHandle) => void): Promise<boolean> {
  let broker: BrokerHandle | undefined;
  let url = options.url;
  if (url === undefined) {
    broker = await startBroker(REPO_ROOT, log);
    onBroker(broker);
    url = broker.url;
  }
  const client = new QueenClient(url, CONNECTIONS);
  let allOk = true;
  try {
    if (!(await client.health())) throw new Error(`GET ${url}/health did not answer 200`);
    const ctx: ScenarioContext = {
      client, durationS: options.durationS, messages: options.messages, group: options.group,
      popPartitions: options.popPartitions, spread: options.spread, log,
    };
    for (const name of options.scenarios) {
      const scenario = SCENARIOS.get(name);
      if (scenario === undefined) continue;
      const results: ScenarioResult[] = [];
      for (let run = 1; run <= options.runs; run++) {
        log(`running ${name}${options.runs > 1 ? ` (run ${run}/${options.runs})` : ''} against ${url}`);
        try {
          const result = await scenario(ctx);
          results.push(result);
          reporter.run(result, run, options.runs);
          if (result.verdict !== undefined && !result.verdict.ok) allOk = false;
          if (Object.values(result.checks ?? {}).includes(false)) allOk = false;
        } catch (error) {
          allOk = false;
          reporter.failure(name, run, options.runs, describeError(error));
        }
      }
      if (options.runs > 1 && results.length > 0) reporter.median(name, results, options.runs);
    }
  } finally {
    await client.close();
    if (broker !== undefined) {
      log('stopping broker');
      await broker.stop();
    }
  }
  return allOk;
}

async function main(): Promise<number> {
  const names = [...SCENARIOS.keys()];
  let options: CliOptions;
  try {
    options = parseCli(process.argv.slice(2), names);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${usage(names)}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${usage(names)}\n`);
    return 0;
  }
  const log = options.jsonOnly ? (): void => undefined : (line: string): void => void process.stderr.write(`# ${line}\n`);
  const reporter = new Reporter(options.jsonOnly);
  reporter.machine(machineInfo());

  let broker: BrokerHandle | undefined;
  const interrupt = (): void => {
    broker?.killNow();
    process.exit(130);
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    return (await runAll(options, reporter, log, (started) => {
      broker = started;
    })) ? 0 : 1;
  } catch (error) {
    process.stderr.write(`bench: ${describeError(error)}\n`);
    return 1;
  }
}

process.exitCode = await main();
