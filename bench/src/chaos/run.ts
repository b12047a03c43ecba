/**
 * chaos: the e2e workload on two broker processes sharing one PostgreSQL, while the harness kills a broker
 * with SIGKILL every --kill-every seconds and restarts PostgreSQL once mid-run; then the no-loss verdict.
 *
 * Design:
 * - A fresh temp folder (mode 0777) holds everything: the harness's embedded PostgreSQL (pgdata/ and
 *   postgres.log; the environment's PG_HOST/DATABASE_URL database is used instead when set, and then never
 *   restarted), each broker's data directory and its stdout/stderr logs. pgdata/ is removed after a run whose
 *   checks all passed; the logs are always kept and their folder is printed.
 * - Two broker slots (a, b) on two free ports with SERVER_IDs chaos-a/chaos-b, both using the database as an
 *   external one. The queue is configured with leaseTime 5 so a message whose ack died with its broker comes
 *   back within seconds.
 * - The workload (workload.ts): producers retry every failed push with the same transactionIds until stored,
 *   consumers pop/ack with retried acks, both failing over between the brokers.
 * - The chaos loop is sequential, so at most one disruption is in progress: every --kill-every seconds the
 *   next broker (alternating) is SIGKILLed, restarted on its port 1 s later and awaited healthy; once, when
 *   half of the messages are stored, PostgreSQL is stopped, kept down 3 s and started again, and the loop
 *   waits until both brokers answer /health 200. A broker exit the harness did not cause is a finding: it is
 *   counted, its log tail is kept, and the slot restarts it. Chaos continues during the drain.
 * - When every message was stored the producers stop; consumers drain until every stored message was
 *   delivered and acked, or 60 s pass without a new completion. Then the checker's verdict (lost, skipped,
 *   reordered, duplicates) and the duplicate classification (duplicates.ts). When messages are missing, the
 *   database is asked where they are (message_keys offset vs. the queue-mode cursor) for the evidence.
 * - Output (findings.ts): the machine line, one JSON line and a human summary. Exit code 1 when a check fails.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../broker-process.js';
import { Checker } from '../checker.js';
import { Reporter, machineInfo } from '../report.js';
import {
  PartitionRotation, QUEUE_MODE_LABEL, countBudget, describeError, freshQueueName, now, partitionNames, runTag, sleep,
} from '../scenarios/common.js';
import { ConsumeProgress } from '../scenarios/consumer.js';
import { fmt } from '../scenarios/push.js';
import { perSecond, round } from '../stats.js';
import { BrokerSlot, type UnexpectedExit } from './brokers.js';
import { ChaosClient } from './client.js';
import { classifyDuplicates, type DeliveryEvent } from './duplicates.js';
import { locate, report, type ChaosLog, type ChaosResult, type Whereabouts } from './findings.js';
import { chaosUsage, parseChaosOptions, type ChaosOptions } from './options.js';
import { externalDatabase, startEmbeddedDatabase, type ChaosDatabase } from './postgres.js';
import { WorkloadStats, runConsumer, runProducer, type WorkloadContext } from './workload.js';

const LEASE_S = 5;
const BATCH = 10;
const KILL_DOWN_MS = 1000;
const PG_DOWN_MS = 3000;
const DRAIN_IDLE_MS = 60_000;
const CONNECTIONS = 64;

/** Runs `chaos` with the arguments that follow it; returns the exit code. */
export async function chaosMain(argv: readonly string[], repoRoot: string): Promise<number> {
  let options: ChaosOptions;
  try {
    options = parseChaosOptions(argv);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${chaosUsage()}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${chaosUsage()}\n`);
    return 0;
  }
  const log = options.jsonOnly ? (): void => undefined : (line: string): void => void process.stderr.write(`# ${line}\n`);
  new Reporter(options.jsonOnly).machine(machineInfo());

  const entry = path.join(repoRoot, 'packages', 'server', 'dist', 'main.js');
  if (!fs.existsSync(entry)) {
    process.stderr.write(`broker not built: ${entry} does not exist (run npm run build)\n`);
    return 1;
  }
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-chaos-'));
  fs.chmodSync(folder, 0o777);
  log(`chaos: temp folder ${folder} (broker logs, PostgreSQL log and data)`);

  let database: ChaosDatabase | undefined;
  const slots: BrokerSlot[] = [];
  const emergencyStop = (): void => {
    for (const slot of slots) slot.killNow();
    database?.killNow();
  };
  const interrupt = (): void => {
    process.stderr.write(`chaos: interrupted; logs in ${folder}\n`);
    emergencyStop();
    process.exit(130);
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  process.once('exit', emergencyStop);

  try {
    database = externalDatabase() ?? await startEmbeddedDatabase(folder, log);
    const pgRestart = options.pgRestart && database.restartable;
    if (options.pgRestart && !database.restartable) log('chaos: PostgreSQL is external (PG_HOST/DATABASE_URL): no PostgreSQL restart');
    const ports: number[] = [];
    while (ports.length < 2) {
      const port = await freePort();
      if (!ports.includes(port)) ports.push(port);
    }
    const exits: UnexpectedExit[] = [];
    for (const [i, name] of ['a', 'b'].entries()) {
      slots.push(new BrokerSlot({
        name, port: ports[i]!, entry, repoRoot, folder, databaseEnv: database.brokerEnv, log,
        onUnexpectedExit: (exit) => exits.push(exit),
      }));
    }
    for (const slot of slots) {
      const began = now();
      await slot.start();
      log(`broker ${slot.name} ready on ${slot.url} after ${((now() - began) / 1000).toFixed(1)} s (pid ${slot.pid}, ${database.description})`);
    }
    const result = await runChaos(options, slots, database, pgRestart, exits, log);
    const passed = Object.values(result.checks).every(Boolean);

    log('chaos: stopping brokers');
    await Promise.all(slots.map((slot) => slot.stop()));
    log('chaos: stopping PostgreSQL');
    await database.stop();
    if (passed && database.restartable) fs.rmSync(path.join(folder, 'pgdata'), { recursive: true, force: true, maxRetries: 5 });

    report(result, options, folder);
    return passed ? 0 : 1;
  } catch (error) {
    process.stderr.write(`chaos: ${describeError(error)}\nlogs in ${folder}\n`);
    for (const slot of slots) await slot.stop().catch(() => undefined);
    await database?.stop().catch(() => undefined);
    return 1;
  } finally {
    process.removeListener('SIGINT', interrupt);
    process.removeListener('SIGTERM', interrupt);
    process.removeListener('exit', emergencyStop);
  }
}

async function runChaos(options: ChaosOptions, slots: readonly BrokerSlot[], database: ChaosDatabase, pgRestart: boolean,
  exits: UnexpectedExit[], log: (line: string) => void): Promise<ChaosResult> {
  const clients = [new ChaosClient(slots[0]!.url, CONNECTIONS), new ChaosClient(slots[1]!.url, CONNECTIONS)] as const;
  const queue = freshQueueName('chaos');
  await clients[0].configure(queue, { leaseTime: LEASE_S });
  log(`chaos: queue ${queue} (leaseTime ${LEASE_S} s), ${options.producers} producers x batch ${BATCH}, ` +
    `${options.consumers} consumers x batch 100, ${fmt(options.messages)} messages, ` +
    `${options.killEveryS > 0 ? `a broker killed every ${options.killEveryS} s` : 'no broker kills'}, ` +
    `${pgRestart ? 'one PostgreSQL restart at half-way' : 'no PostgreSQL restart'}` +
    `${options.dropAcksPercent > 0 ? `, acks of ${options.dropAcksPercent}% of the batches not sent` : ''}`);

  const checker = new Checker();
  const progress = new ConsumeProgress();
  const stats = new WorkloadStats();
  const events: DeliveryEvent[] = [];
  let aborted = false;
  const ctx: WorkloadContext = {
    clients, queue, checker, progress, stats, events, aborted: () => aborted, dropAcks: options.dropAcksPercent / 100,
  };
  const chaos: ChaosLog = {
    kills: 0, skippedKills: 0, pgRestarts: 0, pgStoppedAtS: NaN, brokersHealthyAfterPgS: NaN, unexpectedExits: exits,
  };
  const notes: string[] = [];

  const started = now();
  let producersDoneAt = NaN;
  let chaosStop = false;

  // Chaos: one disruption at a time.
  const chaosLoop = (async (): Promise<void> => {
    const periodMs = options.killEveryS * 1000;
    let nextKill = periodMs > 0 ? started + periodMs : Infinity;
    let victim = 0;
    let pgDone = !pgRestart;
    while (!chaosStop) {
      await sleep(100);
      if (chaosStop) break;
      if (!pgDone && stats.accepted >= options.messages / 2) {
        pgDone = true;
        chaos.pgStoppedAtS = round((now() - started) / 1000, 1);
        log(`chaos: restarting PostgreSQL (${fmt(stats.accepted)} messages stored; down for ${PG_DOWN_MS / 1000} s)`);
        await database.restart(PG_DOWN_MS);
        chaos.pgRestarts++;
        const upAt = now();
        while (!chaosStop && now() - upAt < 120_000) {
          const health = await Promise.all(slots.map((slot) => slot.healthy()));
          if (health.every(Boolean)) {
            chaos.brokersHealthyAfterPgS = round((now() - upAt) / 1000, 2);
            break;
          }
          await sleep(100);
        }
        log(`chaos: PostgreSQL back; both brokers healthy ${Number.isNaN(chaos.brokersHealthyAfterPgS)
          ? 'NOT within 120 s' : `${chaos.brokersHealthyAfterPgS} s after its start`}`);
        nextKill = Math.max(nextKill, now() + periodMs);
        continue;
      }
      if (now() < nextKill) continue;
      const slot = slots[victim]!;
      victim = 1 - victim;
      if (slot.state !== 'running') {
        chaos.skippedKills++;
        log(`chaos: broker ${slot.name} is ${slot.state}: kill skipped`);
      } else {
        const pid = slot.pid;
        const began = now();
        await slot.killAndRestart(KILL_DOWN_MS);
        chaos.kills++;
        log(`chaos: kill #${chaos.kills}: broker ${slot.name} (pid ${pid}) SIGKILLed, back after ${((now() - began) / 1000).toFixed(1)} s (pid ${slot.pid})`);
      }
      nextKill = Math.max(nextKill + periodMs, now() + 1000);
    }
  })();

  // Progress lines.
  const ticker = setInterval(() => {
    const s = (now() - started) / 1000;
    log(`chaos: ${s.toFixed(0)} s: stored ${fmt(stats.accepted)}/${fmt(options.messages)}, completed ${fmt(progress.completed.size)}, ` +
      `deliveries ${fmt(stats.deliveries)}, kills ${chaos.kills}, PostgreSQL restarts ${chaos.pgRestarts}, ` +
      `broker exits ${exits.length}, push retries ${fmt(stats.pushRetries)}, ack retries ${fmt(stats.ackRetries)}`);
  }, 5000);

  const shouldStop = (): boolean => {
    if (Number.isNaN(producersDoneAt)) return false;
    if (progress.remaining === 0) return true;
    return now() - Math.max(producersDoneAt, progress.lastProgressAt) > DRAIN_IDLE_MS;
  };
  const consumers = Promise.all(Array.from({ length: options.consumers }, (_, i) => runConsumer(ctx, i, shouldStop)));
  const budget = countBudget(options.messages);
  const rotation = new PartitionRotation(partitionNames());
  const tag = runTag();
  let producerError: unknown = null;
  try {
    await Promise.all(Array.from({ length: options.producers }, (_, i) => runProducer(ctx, i, tag, budget, rotation, BATCH)));
  } catch (error) {
    producerError = error;
    aborted = true;
  }
  producersDoneAt = now();
  progress.expect(checker.pushedIds());
  const produceMs = producersDoneAt - started;
  log(`chaos: producers done after ${(produceMs / 1000).toFixed(1)} s (${fmt(stats.accepted)} stored); draining`);
  await consumers;
  const endedAt = now();
  chaosStop = true;
  await chaosLoop;
  clearInterval(ticker);
  await Promise.all(slots.map((slot) => slot.settled()));
  if (producerError !== null) throw producerError;
  if (progress.remaining > 0) notes.push(`${fmt(progress.remaining)} stored messages were not delivered-and-acked when the drain stopped`);

  const verdict = checker.verdict([QUEUE_MODE_LABEL]);
  if (stats.ackUnanswered > 0 && verdict.skipped > 0) {
    notes.push(`${fmt(stats.ackUnanswered)} deliveries' acks never got an answer within 60 s: the checker counts them as not acked, ` +
      'so skipped may include messages whose ack was in fact applied (see the cursor positions)');
  }
  const duplicates = classifyDuplicates(events, LEASE_S * 1000);
  let whereabouts: Whereabouts[] = [];
  if (verdict.lost > 0 || verdict.skipped > 0 || progress.remaining > 0) {
    const ids = new Set<string>();
    for (const example of [...verdict.examples.lost, ...verdict.examples.skipped]) ids.add(example.slice(example.indexOf('/') + 1));
    for (const id of checker.pushedIds()) {
      if (ids.size >= 20) break;
      if (!progress.completed.has(id)) ids.add(id);
    }
    whereabouts = await locate(database, queue, [...ids], log);
  }

  await Promise.all(clients.map((client) => client.close()));
  if (!database.restartable) {
    const cleanup = new ChaosClient(slots[0]!.url, 1);
    try {
      const status = await cleanup.deleteQueue(queue);
      if (status < 200 || status >= 300) log(`delete ${queue}: HTTP ${status}`);
    } catch (error) {
      log(`delete ${queue}: ${describeError(error)}`);
    } finally {
      await cleanup.close();
    }
  }

  const lastAt = Number.isNaN(progress.lastCompleteAt) ? endedAt : progress.lastCompleteAt;
  const figures: Record<string, number> = {
    messages: options.messages,
    stored: stats.accepted,
    completed: progress.completed.size,
    durationS: round((lastAt - started) / 1000, 1),
    produceS: round(produceMs / 1000, 1),
    pushMsgsPerSec: perSecond(stats.accepted, produceMs),
    consumeMsgsPerSec: perSecond(progress.completed.size, lastAt - started),
    kills: chaos.kills,
    skippedKills: chaos.skippedKills,
    pgRestarts: chaos.pgRestarts,
    pgStoppedAtS: chaos.pgStoppedAtS,
    brokersHealthyAfterPgS: chaos.brokersHealthyAfterPgS,
    brokerExits: exits.length,
    failedBrokerStarts: slots.reduce((sum, slot) => sum + slot.failedStarts, 0),
    pushAttempts: stats.pushAttempts,
    pushRetries: stats.pushRetries,
    retriedPushRequests: stats.retriedRequests,
    duplicateAnswers: Number(stats.itemStatuses.toJSON()['duplicate'] ?? 0),
    popFailures: stats.popFailures.total,
    ackRetries: stats.ackRetries,
    ackRefusedItems: stats.ackItems.total - Number(stats.ackItems.toJSON()['success'] ?? 0),
    ackUnanswered: stats.ackUnanswered,
    ackDropped: stats.ackDropped,
    unexpected5xx: stats.unexpected5xx.total,
    deliveries: stats.deliveries,
    lost: verdict.lost,
    skipped: verdict.skipped,
    reordered: verdict.reordered,
    duplicates: verdict.duplicates,
    redeliveries: duplicates.redeliveries,
    duplicatesExplained: duplicates.explained,
    duplicatesUnexplained: duplicates.unexplained + duplicates.withinLease + duplicates.storedTwice,
  };
  const checks = {
    noLoss: verdict.lost === 0,
    noSkips: verdict.skipped === 0,
    noReorders: verdict.reordered === 0,
    drained: progress.remaining === 0,
    noUnexplainedDuplicates: figures['duplicatesUnexplained'] === 0,
    noBrokerExits: exits.length === 0,
    noUnexpected5xx: stats.unexpected5xx.total === 0,
    pgRestarted: !pgRestart || chaos.pgRestarts === 1,
  };
  return { queue, figures, verdict, duplicates, checks, chaos, stats, whereabouts, notes };
}
