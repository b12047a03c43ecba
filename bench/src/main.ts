/**
 * The benchmark tool's entry point: `node bench/dist/main.js [scenario ...] [--url URL] [--duration S]
 * [--runs N] [--json-only] ...` (see cli.ts for every flag).
 *
 * Design: parse the command line, print the machine, start a local broker unless --url was given, run the
 * chosen scenarios sequentially (each --runs times, with a median line when repeated, per mode for scenarios
 * that report several), then stop the broker. A second broker on the same database (wake's two-process mode)
 * is only started when a scenario first asks for it: on the first broker's embedded PostgreSQL, used as an
 * external database, or on the environment's PG_HOST/DATABASE_URL database; with --url it is --url2.
 * The second broker is stopped before the first, which owns the embedded PostgreSQL.
 * While each scenario runs, the brokers the tool started are sampled from /proc (peak RSS, CPU of broker,
 * PostgreSQL and this process; resources.ts) and the figures join the scenario's. With --write-doc, the
 * database's version and settings are read first (pg-info.ts) and docs/performance.md is written at the
 * end from every run (doc.ts, targets.ts).
 * A scenario that throws is reported and the next one runs. The exit code is 1 when any scenario failed,
 * any checker verdict was not ok or any scenario check failed, 2 for a bad command line, 130 on Ctrl-C.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { environmentHasDatabase, startBroker, type BrokerHandle } from './broker-process.js';
import { parseCli, usage, type CliOptions } from './cli.js';
import { writePerformanceDoc } from './doc.js';
import { readNewestProfile, renderProfileTable, summarizeProfile } from './profile.js';
import { QueenClient } from './http.js';
import { embeddedDatabase, environmentDatabase, localPostmasters, readDatabaseInfo, type DatabaseInfo } from './pg-info.js';
import { Reporter, machineInfo } from './report.js';
import { ResourceSampler, cpuPerMessage, describeResources, nodeCpuPerMessage, parentPid, processCpuUs } from './resources.js';
import type { RunRecord } from './targets.js';
import { describeError, type ScenarioContext, type ScenarioResult, type SecondBroker } from './scenarios/common.js';
import { DEFAULT_SCENARIOS, FAMILIES, SCENARIOS } from './scenarios/index.js';

/** The repository root: bench/dist/main.js -> ../.. */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Enough connections for the largest scenario (50 pushers) plus headroom for long-polls and acks. */
const CONNECTIONS = 64;

/** What a run leaves for --write-doc: every scenario run, and the database it ran on (if known and asked for). */
interface RunOutput {
  records: RunRecord[];
  database: DatabaseInfo | null;
}

/** The figure that counts a scenario's messages, the first it reports: pushed messages, or wake-ups measured (wake, scale-parked). */
const MESSAGE_FIGURES = ['messages', 'pushed', 'samples', 'wakes'];

async function runAll(options: CliOptions, reporter: Reporter, log: (line: string) => void,
  onBroker: (broker: BrokerHandle) => void, output: RunOutput): Promise<boolean> {
  let broker: BrokerHandle | undefined;
  let url = options.url;
  if (url === undefined) {
    const profileDir = options.profileDir === undefined ? undefined : path.resolve(options.profileDir);
    broker = await startBroker(options.brokerRepo ?? REPO_ROOT, log, { workers: options.workers, ...(profileDir === undefined ? {} : { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileDir] }) });
    onBroker(broker);
    url = broker.url;
  }
  const client = new QueenClient(url, CONNECTIONS);
  let secondBrokerHandle: BrokerHandle | undefined;
  let secondClient: QueenClient | undefined;
  let second: Promise<SecondBroker> | undefined;
  const startSecond = async (): Promise<SecondBroker> => {
    if (broker === undefined) {
      if (options.url2 === undefined) return { client: null, reason: 'no --url2 given for the second broker' };
      secondClient = new QueenClient(options.url2, CONNECTIONS);
      if (!(await secondClient.health())) throw new Error(`GET ${options.url2}/health did not answer 200`);
      return { client: secondClient };
    }
    const pgPort = broker.embeddedPgPort;
    const database = environmentHasDatabase() || pgPort === undefined ? undefined
      : { host: 'localhost', port: pgPort, user: 'postgres', password: 'postgres', database: 'postgres' };
    secondBrokerHandle = await startBroker(options.brokerRepo ?? REPO_ROOT, log, { label: 'second broker', workers: options.workers, ...(database === undefined ? {} : { database }) });
    onBroker(secondBrokerHandle);
    secondClient = new QueenClient(secondBrokerHandle.url, CONNECTIONS);
    return { client: secondClient };
  };
  let allOk = true;
  try {
    if (!(await client.health())) throw new Error(`GET ${url}/health did not answer 200`);
    const target = broker?.embeddedPgPort !== undefined ? embeddedDatabase(broker.embeddedPgPort) : environmentDatabase();
    if (options.writeDoc) output.database = target === undefined ? null : await readDatabaseInfo(target);
    const brokerPids = (): number[] => [broker?.pid ?? -1, secondBrokerHandle?.pid ?? -1].filter((pid) => pid > 0);
    // An external PostgreSQL on this host: its postmasters' trees are PostgreSQL's CPU (a Citus coordinator's and
    // its local workers'); the embedded one is found below the broker.
    const externalPostmasters = broker?.embeddedPgPort === undefined && target !== undefined ? await localPostmasters(target, parentPid) : new Map<number, string>();
    const postmasterPids = (): ReadonlyMap<number, string> => externalPostmasters;
    const ctx: ScenarioContext = {
      client, durationS: options.durationS, messages: options.messages, group: options.group,
      popPartitions: options.popPartitions, spread: options.spread, rate: options.rate,
      partitionsCount: options.partitionsCount, database: target, log,
      secondBroker: () => (second ??= startSecond()),
      brokerCpuUs: () => (broker === undefined ? NaN : processCpuUs(broker.pid)),
      phaseResources: () => {
        const phase = new ResourceSampler(brokerPids, postmasterPids);
        phase.start();
        return phase;
      },
    };
    for (const name of options.scenarios) {
      const scenario = SCENARIOS.get(name);
      if (scenario === undefined) continue;
      /** Successful results per mode ('' for scenarios without modes), in first-seen order. */
      const byMode = new Map<string, ScenarioResult[]>();
      for (let run = 1; run <= options.runs; run++) {
        log(`running ${name}${options.runs > 1 ? ` (run ${run}/${options.runs})` : ''} against ${url}`);
        // Broker RSS/CPU over the whole scenario call (both modes of wake share it); null with --url.
        const sampler = new ResourceSampler(brokerPids, postmasterPids);
        sampler.start();
        try {
          const outcome = await scenario(ctx).finally(() => sampler.stop());
          const resources = sampler.stop();
          const results = Array.isArray(outcome) ? outcome : [outcome];
          // CPU per message over the whole call (all its modes: one sampler) unless the scenario measured its own phase (drain).
          const callMessages = results.reduce((sum, r) => sum + (MESSAGE_FIGURES.map((f) => r.figures[f]).find((v) => v !== undefined) ?? 0), 0);
          for (const result of results) {
            if (result.skipped === undefined) {
              if (result.figures['brokerUsPerMsg'] === undefined && callMessages > 0) Object.assign(result.figures, cpuPerMessage(resources, callMessages));
              Object.assign(result.figures, resources);
              const nodes = externalPostmasters.size > 1 && callMessages > 0 ? nodeCpuPerMessage(sampler.nodeCpuUs(), callMessages) : {};
              Object.assign(result.figures, nodes);
              const perNode = Object.entries(nodes).map(([key, us]) => `${key.slice('pgUsPerMsg:'.length)} ${us}`).join(', ');
              result.summary += `; ${describeResources(resources)}; CPU µs/msg broker ${result.figures['brokerUsPerMsg'] ?? '–'}, PostgreSQL ${result.figures['pgUsPerMsg'] ?? '–'}${perNode === '' ? '' : ` (${perNode})`}`;
            }
            output.records.push({ scenario: name, mode: result.mode, run, result, error: null });
            reporter.run(result, run, options.runs);
            if (result.verdict !== undefined && !result.verdict.ok) allOk = false;
            if (Object.values(result.checks ?? {}).includes(false)) allOk = false;
            if (result.skipped !== undefined) continue;
            const key = result.mode ?? '';
            byMode.set(key, [...(byMode.get(key) ?? []), result]);
          }
        } catch (error) {
          allOk = false;
          output.records.push({ scenario: name, mode: undefined, run, result: null, error: describeError(error) });
          reporter.failure(name, run, options.runs, describeError(error));
        }
      }
      if (options.runs > 1) for (const results of byMode.values()) reporter.median(name, results, options.runs);
    }
  } finally {
    await client.close();
    await secondClient?.close();
    if (secondBrokerHandle !== undefined) {
      log('stopping second broker');
      await secondBrokerHandle.stop();
    }
    if (broker !== undefined) {
      log('stopping broker');
      await broker.stop();
    }
  }
  if (options.profileDir !== undefined) printProfile(options.profileDir, output.records);
  return allOk;
}

/** --profile: the broker's CPU per stage over each profiled scenario run's window (stdout, markdown). */
function printProfile(dir: string, records: readonly RunRecord[]): void {
  const profile = readNewestProfile(path.resolve(dir));
  if (profile === null) {
    process.stderr.write(`bench: no .cpuprofile in ${dir} (did the broker exit cleanly?)\n`);
    return;
  }
  for (const record of records) {
    const span = record.result?.profile;
    if (span === undefined) continue;
    const requests = span.requests.push + span.requests.pop + span.requests.ack;
    const label = `${record.scenario} run ${record.run} (push ${span.requests.push}, pop ${span.requests.pop}, ack ${span.requests.ack})`;
    process.stdout.write(`\n${renderProfileTable(label, summarizeProfile(profile, [span.window]), span.cpuUs, requests, span.messages)}\n`);
  }
}

/** The command as typed: `npm run bench -- ...` under npm, else `node bench/dist/main.js ...`. */
function commandLine(): string {
  const args = process.argv.slice(2).map((arg) => (/^[\w./:=,@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`));
  if (process.env['npm_lifecycle_event'] === 'bench') return ['npm run bench', ...(args.length > 0 ? ['--', ...args] : [])].join(' ');
  return ['node bench/dist/main.js', ...args].join(' ');
}

async function main(): Promise<number> {
  // `chaos` has its own brokers, PostgreSQL and flags (bench/src/chaos/run.ts); loaded only when asked for.
  if (process.argv[2] === 'chaos') return (await import('./chaos/run.js')).chaosMain(process.argv.slice(3), REPO_ROOT);
  // `chaos-outage`: the failover buffer catching up under load (bench/src/chaos/outage.ts).
  if (process.argv[2] === 'chaos-outage') return (await import('./chaos/outage.js')).outageMain(process.argv.slice(3), REPO_ROOT);
  // `chaos-service`: a PostgreSQL outage behind a Service-like balancer following /ready, one broker rolled (bench/src/chaos/service.ts).
  if (process.argv[2] === 'chaos-service') return (await import('./chaos/service.js')).serviceMain(process.argv.slice(3), REPO_ROOT);
  // `failover` runs a pg_auto_failover cluster of its own (bench/src/failover/run.ts).
  if (process.argv[2] === 'failover') return (await import('./failover/run.js')).failoverMain(process.argv.slice(3), REPO_ROOT);
  const names = [...SCENARIOS.keys()];
  let options: CliOptions;
  try {
    options = parseCli(process.argv.slice(2), names, DEFAULT_SCENARIOS, FAMILIES);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${usage(names, DEFAULT_SCENARIOS, FAMILIES)}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${usage(names, DEFAULT_SCENARIOS, FAMILIES)}\n`);
    return 0;
  }
  const log = options.jsonOnly ? (): void => undefined : (line: string): void => void process.stderr.write(`# ${line}\n`);
  const reporter = new Reporter(options.jsonOnly);
  const machine = machineInfo();
  const loadAverage = os.loadavg();
  const startedAt = new Date();
  reporter.machine(machine);

  const brokers: BrokerHandle[] = [];
  const interrupt = (): void => {
    for (const broker of [...brokers].reverse()) broker.killNow();
    process.exit(130);
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const output: RunOutput = { records: [], database: null };
  try {
    const ok = await runAll(options, reporter, log, (started) => {
      brokers.push(started);
    }, output);
    if (options.writeDoc) {
      const file = path.join(REPO_ROOT, 'docs', 'performance.md');
      writePerformanceDoc(file, {
        date: startedAt, machine, loadAverage, command: commandLine(), runs: options.runs, durationS: options.durationS,
        brokerUrl: options.url, database: output.database, scenarios: options.scenarios, records: output.records,
        note: options.docNote,
      });
      log(`wrote ${path.relative(process.cwd(), file) || file}`);
    }
    return ok ? 0 : 1;
  } catch (error) {
    process.stderr.write(`bench: ${describeError(error)}\n`);
    return 1;
  }
}

process.exitCode = await main();
