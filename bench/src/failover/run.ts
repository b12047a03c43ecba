/**
 * failover: two brokers on a pg_auto_failover cluster's multi-host URL under load from @queen/client
 * producers and consumers, while the harness injects faults into the primary; the no-loss verdict per fault.
 *
 * Design:
 * - A fresh temp folder holds everything: cluster/ (the monitor's and nodes' data, pg_autoctl's state and
 *   their logs, cluster.ts), each broker's data directory (its own FILE_BUFFER_DIR) and its stdout/stderr
 *   logs. The databases in it are removed after a run whose checks all passed; the logs are always kept.
 * - The brokers are the chaos run's slots (chaos/brokers.ts) with DATABASE_URL = the formation's URL from
 *   `pg_autoctl show uri` (postgres://...@h1:p1,h2:p2/queen?target_session_attrs=read-write).
 * - Faults run one after the other, each on a fresh queue with a fresh workload (workload.ts): --before
 *   seconds of load, the fault (faults.ts), --after seconds of load after the engine's promotion, the old
 *   primary brought back as the standby (so the next fault has one), then producers stop and consumers drain
 *   until every stored message was delivered and acked (or 30 s without progress). The checker's verdict and
 *   the duplicate classification are per fault.
 * - Every exit path (error, Ctrl-C, process exit) SIGKILLs the cluster's process groups and the brokers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Reporter, machineInfo } from '../report.js';
import { QUEUE_MODE_LABEL, describeError, freshQueueName, runTag, sleep } from '../scenarios/common.js';
import { freePort } from '../broker-process.js';
import { BrokerSlot, type UnexpectedExit } from '../chaos/brokers.js';
import { classifyDuplicates } from '../chaos/duplicates.js';
import { AutoFailoverCluster } from './cluster.js';
import { injectFault, recoveryS, restore } from './faults.js';
import { failoverUsage, parseFailoverOptions, type Fault, type FailoverOptions } from './options.js';
import { printReport, type FaultResult } from './report.js';
import { FailoverWorkload } from './workload.js';

const LEASE_MS = 5000;
const DRAIN_IDLE_MS = 30_000;

/** What a run produced. */
export interface FailoverRun {
  results: FaultResult[];
  /** True when every fault's checks passed. */
  passed: boolean;
  /** The run's folder (the logs). */
  folder: string;
  uri: string;
}

/** Runs `failover` with the arguments that follow it; returns the exit code. */
export async function failoverMain(argv: readonly string[], repoRoot: string): Promise<number> {
  let options: FailoverOptions;
  try {
    options = parseFailoverOptions(argv);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${failoverUsage()}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${failoverUsage()}\n`);
    return 0;
  }
  const log = options.jsonOnly ? (): void => undefined : (line: string): void => void process.stderr.write(`# ${line}\n`);
  new Reporter(options.jsonOnly).machine(machineInfo());
  try {
    const run = await runFailover(options, repoRoot, log);
    printReport(run.results, options, run.uri, run.folder);
    return run.passed ? 0 : 1;
  } catch (error) {
    process.stderr.write(`failover: ${describeError(error)}\n`);
    return 1;
  }
}

/** Starts the cluster and the brokers, runs every fault, stops everything; throws when the set-up fails. */
export async function runFailover(options: FailoverOptions, repoRoot: string, log: (line: string) => void): Promise<FailoverRun> {
  const entry = path.join(repoRoot, 'packages', 'server', 'dist', 'main.js');
  if (!fs.existsSync(entry)) throw new Error(`broker not built: ${entry} does not exist (run npm run build)`);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-failover-'));
  fs.chmodSync(folder, 0o755);
  log(`failover: temp folder ${folder} (cluster data and logs, broker logs)`);
  let cluster: AutoFailoverCluster | undefined;
  const slots: BrokerSlot[] = [];
  const emergencyStop = (): void => {
    for (const slot of slots) slot.killNow();
    cluster?.killNow();
  };
  const interrupt = (): void => {
    process.stderr.write(`failover: interrupted; logs in ${folder}\n`);
    emergencyStop();
    process.exit(130);
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  process.once('exit', emergencyStop);
  let passed = false;
  try {
    const clusterFolder = path.join(folder, 'cluster');
    fs.mkdirSync(clusterFolder);
    cluster = await AutoFailoverCluster.start(clusterFolder, log);
    const uri = await cluster.uri();
    log(`failover: brokers use DATABASE_URL=${uri}`);
    const exits: UnexpectedExit[] = [];
    for (const name of ['a', 'b']) {
      const slot = new BrokerSlot({
        name, port: await freePort(), entry, repoRoot, folder, databaseEnv: { DATABASE_URL: uri }, log, serverId: `failover-${name}`,
        onUnexpectedExit: (exit) => exits.push(exit),
      });
      slots.push(slot);
      await slot.start().catch((error: unknown) => {
        const tail = fs.readFileSync(slot.stderrLog, 'utf8').trim().split('\n').slice(-5).join(' | ');
        throw new Error(`${describeError(error)}; its stderr: ${tail}`);
      });
      log(`failover: broker ${name} ready on ${slot.url} (pid ${slot.pid})`);
    }
    const results: FaultResult[] = [];
    for (const fault of options.faults) {
      results.push(await runFault(fault, options, cluster, slots, exits, log));
    }
    passed = results.every((r) => Object.values(r.checks).every(Boolean));
    return { results, passed, folder, uri };
  } finally {
    await Promise.all(slots.map((slot) => slot.stop().catch(() => undefined)));
    await cluster?.stop();
    process.removeListener('SIGINT', interrupt);
    process.removeListener('SIGTERM', interrupt);
    process.removeListener('exit', emergencyStop);
    // The logs stay (findings need them); the databases go unless a check failed.
    if (passed) cluster?.removeData();
    log(`failover: logs in ${folder}`);
  }
}

async function runFault(fault: Fault, options: FailoverOptions, cluster: AutoFailoverCluster, slots: readonly BrokerSlot[],
  exits: UnexpectedExit[], log: (line: string) => void): Promise<FaultResult> {
  const exitsBefore = exits.length;
  const workload = new FailoverWorkload({
    urls: slots.map((slot) => slot.url), queue: freshQueueName(`failover-${fault}`), tag: runTag(),
    producers: options.producers, consumers: options.consumers, rate: options.rate,
  });
  const { record } = workload;
  const ticker = setInterval(() => {
    log(`failover: ${fault}: stored ${record.pushed}, delivered ${record.deliveries}, completed ${record.progress.completed.size}, ` +
      `client errors ${record.errors.total}`);
  }, 5000);
  let rejoinS = NaN;
  try {
    await workload.createQueue();
    workload.start();
    await sleep(options.beforeS * 1000);
    const outcome = await injectFault(cluster, fault, options.stallS, log);
    const promotedAt = outcome.promotion === undefined ? Infinity : outcome.faultAt + outcome.promotion.promotedS * 1000;
    await sleep(Math.max(0, (Number.isFinite(promotedAt) ? promotedAt : Date.now()) + options.afterS * 1000 - Date.now()));
    if (options.rejoin) rejoinS = await restore(cluster, outcome, log);
    await workload.stopProducing();
    log(`failover: ${fault}: producers stopped (${record.pushed} stored); draining`);
    await workload.drain(DRAIN_IDLE_MS);
    const verdict = record.checker.verdict([QUEUE_MODE_LABEL]);
    const duplicates = classifyDuplicates(record.events, LEASE_MS);
    const unexplained = duplicates.unexplained + duplicates.withinLease + duplicates.storedTwice;
    const brokerExits = exits.length - exitsBefore;
    return {
      fault, oldPrimary: outcome.oldPrimary, newPrimary: outcome.promotion?.newPrimary ?? null,
      promotionS: outcome.promotion?.promotedS ?? NaN, detectionS: outcome.promotion?.detectedS ?? NaN,
      timeline: outcome.promotion?.timeline ?? [],
      firstPushS: recoveryS(record.committedPushes, outcome.faultAt, promotedAt),
      firstPopS: recoveryS(record.servedPops, outcome.faultAt, promotedAt),
      pushed: record.pushed, delivered: verdict.delivered, lost: verdict.lost, skipped: verdict.skipped, reordered: verdict.reordered,
      duplicates: verdict.duplicates, redeliveries: duplicates.redeliveries, duplicatesExplained: duplicates.explained,
      duplicatesUnexplained: unexplained, duplicateCauses: duplicates.causes,
      clientErrors: record.errors.total, errorKinds: record.errors.toJSON(), warnings: record.warnings.toJSON(),
      itemStatuses: record.itemStatuses.toJSON(), ackUnanswered: record.ackUnanswered, rejoinS, brokerExits,
      examples: verdict.examples,
      checks: {
        promoted: outcome.promotion !== undefined, noLoss: verdict.lost === 0, noSkips: verdict.skipped === 0,
        noReorders: verdict.reordered === 0, drained: record.progress.remaining === 0, noUnexplainedDuplicates: unexplained === 0,
        noBrokerExits: brokerExits === 0,
      },
    };
  } finally {
    clearInterval(ticker);
    await workload.close();
  }
}
