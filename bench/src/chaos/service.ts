/**
 * chaos-service: a PostgreSQL outage as producers and consumers live it behind Kubernetes (issue 41). Two
 * brokers on one PostgreSQL behind a Service-like balancer (balancer.ts: per-connection round robin over the
 * backends whose readiness probe, GET /ready every 5 s, has not failed twice in a row); producers and
 * consumers reach the brokers only through it. After --warmup s PostgreSQL is stopped for --outage s; in the
 * middle of the outage broker a is rolled as a StatefulSet rolls a pod (its endpoint leaves the Service, the
 * preStop sleep of 5 s, SIGTERM, the broker drains and exits, a new process starts on the same volume and
 * SERVER_ID and rejoins once its probe succeeds). The load goes on for --after s once PostgreSQL is back;
 * then the consumers drain.
 *
 * Producers: --producers sequential producers at --rate messages/s in all, each on its own partitions
 * (batches of 10, transactionIds <producer>.<seq>) and its own keep-alive connection, as a service instance
 * that pushes one request at a time has; any answer other than 201 and any transport error is a producer
 * error (counted, then the same batch is retried so nothing is missing from the verdict).
 * Consumers: --consumers long-polling queue-mode pops (batch 100, lease 30 s) with acks; 503 + Retry-After is
 * waited out as the SDK does. Verdict (checker.ts): 0 producer errors, 0 client connections the balancer could
 * not serve, 0 lost, 0 reordered per (partition, producer), consumers receiving buffered messages within 5 s
 * of PostgreSQL's return. Output: one JSON line on stdout and a summary on stderr; exit code 1 when a check fails.
 *
 *   npm run bench -- chaos-service [--rate 400] [--outage 60] [--warmup 10] [--after 20] [--producers 8] [--consumers 4]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathOf, routes } from '@queen/client/api';
import { freePort } from '../broker-process.js';
import { Checker } from '../checker.js';
import { now, sleep } from '../scenarios/common.js';
import { ServiceBalancer } from './balancer.js';
import { BrokerSlot } from './brokers.js';
import { ChaosClient, errorText, popMessages, pushStatuses, transportErrorLabel } from './client.js';
import { startEmbeddedDatabase, type ChaosDatabase } from './postgres.js';
import { Counter } from './workload.js';

const BATCH = 10;
const PARTITIONS_PER_PRODUCER = 2;
const PRE_STOP_MS = 5000;
const PROBE = { path: pathOf(routes.ready, {}), periodMs: 5000, timeoutMs: 3000, failureThreshold: 2 };
const RESUME_TARGET_S = 5;
const GROUP = '__QUEUE_MODE__';

/** The run's shared state. */
interface Run {
  client: ChaosClient;
  queue: string;
  checker: Checker;
  producerErrors: Counter;
  consumerAnswers: Counter;
  running: boolean;
  /** Monotonic ms of PostgreSQL's return, and of the first delivery after it. */
  pgBackAt: number;
  firstDeliveryAfterBack: number;
  lastDeliveryAt: number;
  acked: number;
  /** Transaction ids answered `buffered`, and the distinct ones delivered. */
  buffered: Set<string>;
  delivered: Set<string>;
  /** Pushed when PostgreSQL returned; monotonic ms of the first buffered message delivered after, and of all of them. */
  pushedAtBack: number;
  firstBufferedAfterBack: number;
  caughtUpAt: number;
}

async function produce(run: Run, client: ChaosClient, producer: number, everyMs: number): Promise<void> {
  const partitions = Array.from({ length: PARTITIONS_PER_PRODUCER }, (_, i) => `p${producer}-${i}`);
  const start = now();
  for (let round = 0, seq = 0; run.running; round++) {
    const partition = partitions[round % partitions.length]!;
    const items = Array.from({ length: BATCH }, (_, i) => ({ queue: run.queue, partition, transactionId: `w${producer}.${seq + i + 1}`, payload: { seq: seq + i + 1 } }));
    for (;;) {
      try {
        const answer = await client.push(items);
        const statuses = pushStatuses(answer.body, items.length);
        if (answer.statusCode === 201 && statuses.every((s) => s === 'queued' || s === 'buffered' || s === 'duplicate')) {
          statuses.forEach((s, i) => s === 'buffered' && run.buffered.add(items[i]!.transactionId));
          break;
        }
        run.producerErrors.add(`HTTP ${answer.statusCode} ${errorText(answer)}`);
      } catch (error) {
        run.producerErrors.add(transportErrorLabel(error));
      }
      await sleep(200);
    }
    items.forEach((item, i) => run.checker.recordPush({ transactionId: item.transactionId, partition, producer: `w${producer}`, seq: seq + i + 1 }));
    seq += BATCH;
    const wait = start + (round + 1) * everyMs - now();
    if (wait > 0) await sleep(wait);
  }
}

async function consume(run: Run, stop: () => boolean): Promise<void> {
  let popId = 0;
  while (!stop()) {
    const requestedAt = now();
    let answer;
    try {
      answer = await run.client.pop(run.queue, 100, 2000);
    } catch (error) {
      run.consumerAnswers.add(`pop ${transportErrorLabel(error)}`);
      await sleep(200);
      continue;
    }
    if (answer.statusCode === 204) continue;
    if (answer.statusCode !== 200) {
      run.consumerAnswers.add(`pop HTTP ${answer.statusCode} ${errorText(answer)}`);
      await sleep(1000); // Retry-After: 1
      continue;
    }
    const receivedAt = now();
    const messages = popMessages(answer.body);
    if (messages.length === 0) continue;
    if (run.pgBackAt > 0 && run.firstDeliveryAfterBack === 0 && requestedAt >= run.pgBackAt) run.firstDeliveryAfterBack = receivedAt;
    run.lastDeliveryAt = receivedAt;
    for (const m of messages) run.delivered.add(m.transactionId);
    if (run.pgBackAt > 0) {
      if (run.firstBufferedAfterBack === 0 && messages.some((m) => run.buffered.has(m.transactionId))) run.firstBufferedAfterBack = receivedAt;
      if (run.caughtUpAt === 0 && run.delivered.size >= run.pushedAtBack) run.caughtUpAt = receivedAt;
    }
    const pop = { id: ++popId * 1000 + Math.floor(Math.random() * 1000), requestedAt, receivedAt };
    const handles = messages.map((m) => run.checker.recordDelivery({ group: GROUP, partition: m.partition, transactionId: m.transactionId, acked: false, pop }));
    const acks = messages.map((m) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: m.leaseId, status: 'completed' as const }));
    for (let attempt = 0; attempt < 60; attempt++) {
      try {
        const ack = await run.client.ack(acks);
        if (ack.statusCode === 200) {
          handles.forEach((h) => run.checker.recordAck(h));
          run.acked += acks.length;
          break;
        }
        run.consumerAnswers.add(`ack HTTP ${ack.statusCode} ${errorText(ack)}`);
      } catch (error) {
        run.consumerAnswers.add(`ack ${transportErrorLabel(error)}`);
      }
      await sleep(1000);
    }
  }
}

/** Runs `chaos-service`; returns the exit code. */
export async function serviceMain(argv: readonly string[], repoRoot: string): Promise<number> {
  const { values } = parseArgs({ args: [...argv], strict: true, options: {
    rate: { type: 'string' }, outage: { type: 'string' }, warmup: { type: 'string' }, after: { type: 'string' },
    producers: { type: 'string' }, consumers: { type: 'string' },
  } });
  const rate = Number(values.rate ?? 400);
  const outageS = Number(values.outage ?? 60);
  const warmupS = Number(values.warmup ?? 10);
  const afterS = Number(values.after ?? 20);
  const producers = Number(values.producers ?? 8);
  const consumers = Number(values.consumers ?? 4);
  const everyMs = (1000 * BATCH * producers) / rate;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-chaos-service-'));
  fs.chmodSync(folder, 0o777);
  const log = (line: string): void => void process.stderr.write(`# ${line}\n`);
  const entry = path.join(repoRoot, 'packages/server/dist/main.js');
  let database: ChaosDatabase | undefined;
  const slots: BrokerSlot[] = [];
  let balancer: ServiceBalancer | undefined;
  let client: ChaosClient | undefined;
  const producerClients: ChaosClient[] = [];
  try {
    database = await startEmbeddedDatabase(folder, log);
    for (const name of ['a', 'b']) {
      slots.push(new BrokerSlot({ name, port: await freePort(), entry, repoRoot, folder, databaseEnv: database.brokerEnv, log, readyPath: pathOf(routes.ready, {}),
        onUnexpectedExit: (exit) => log(`FINDING: unexpected exit ${JSON.stringify(exit)}`) }));
    }
    for (const slot of slots) await slot.start();
    balancer = new ServiceBalancer(slots.map((s) => ({ name: s.name, port: Number(new URL(s.url).port) })), PROBE);
    const url = `http://127.0.0.1:${await balancer.listen()}`;
    client = new ChaosClient(url, consumers + 4);
    for (let k = 0; k < producers; k++) producerClients.push(new ChaosClient(url, 1));
    const run: Run = { client, queue: `chaos-service-${Date.now()}`, checker: new Checker(), producerErrors: new Counter(), consumerAnswers: new Counter(),
      running: true, pgBackAt: 0, firstDeliveryAfterBack: 0, lastDeliveryAt: 0, acked: 0,
      buffered: new Set(), delivered: new Set(), pushedAtBack: 0, firstBufferedAfterBack: 0, caughtUpAt: 0 };
    await client.configure(run.queue, { leaseTime: 30 });
    log(`chaos-service: ${rate} msgs/s from ${producers} producers, ${consumers} consumers, through ${url}; logs in ${folder}`);
    const producing = Promise.all(producerClients.map((c, k) => produce(run, c, k, everyMs)));
    let draining = false;
    const consuming = Promise.all(Array.from({ length: consumers }, () => consume(run, () => draining && run.acked >= run.checker.pushedCount)));

    await sleep(warmupS * 1000);
    const stoppedAt = now();
    const outage = database.restart(outageS * 1000).then(() => {
      run.pushedAtBack = run.checker.pushedCount;
      run.pgBackAt = now();
    });
    log('chaos-service: PostgreSQL stopped');
    await sleep((outageS * 1000) / 2 - PRE_STOP_MS);
    const [rolled] = slots;
    balancer.terminating(rolled!.name);
    await sleep(PRE_STOP_MS);
    log(`chaos-service: broker ${rolled!.name} rolled (SIGTERM after the preStop sleep)`);
    const restart = rolled!.terminateAndRestart(0).then(() => balancer!.replaced(rolled!.name));
    const restartedAt = now();
    await restart;
    const restartS = (now() - restartedAt) / 1000;
    await outage;
    log(`chaos-service: PostgreSQL back after ${((run.pgBackAt - stoppedAt) / 1000).toFixed(1)} s`);
    const readyDuringOutage = [...balancer.counts.transitions];
    await sleep(afterS * 1000);
    run.running = false;
    await producing;
    draining = true;
    const drainStart = now();
    while (run.acked < run.checker.pushedCount && now() - Math.max(run.lastDeliveryAt, drainStart) < 30_000) await sleep(200);
    draining = true;
    run.acked = Number.MAX_SAFE_INTEGER; // ends the consumers' loops at their next turn
    await consuming;

    const verdict = run.checker.verdict();
    const afterBack = (at: number): number => (at === 0 ? Number.NaN : Math.round(at - run.pgBackAt) / 1000);
    const resumeS = afterBack(run.firstDeliveryAfterBack);
    const result = {
      scenario: 'chaos-service', rate, outageS, producers, consumers, pushed: verdict.pushed, delivered: verdict.delivered,
      lost: verdict.lost, reordered: verdict.reordered, duplicates: verdict.duplicates, skipped: verdict.skipped,
      producerErrors: run.producerErrors.total, producerErrorKinds: run.producerErrors.toJSON(),
      balancer: { connections: balancer.counts.connections, noBackend: balancer.counts.noBackend, backendFailed: balancer.counts.backendFailed },
      readiness: readyDuringOutage, brokerRestartS: restartS, consumerResumeS: resumeS, bufferedPushes: run.buffered.size,
      firstBufferedDeliveredS: afterBack(run.firstBufferedAfterBack), caughtUpS: afterBack(run.caughtUpAt), consumerAnswers: run.consumerAnswers.toJSON(),
      examples: verdict.examples,
    };
    const checks = {
      noProducerError: result.producerErrors === 0,
      noRefusedConnection: result.balancer.noBackend === 0 && result.balancer.backendFailed === 0,
      nothingLost: verdict.lost === 0 && verdict.skipped === 0,
      orderPerPartition: verdict.reordered === 0,
      consumersResumed: result.firstBufferedDeliveredS <= RESUME_TARGET_S,
    };
    process.stdout.write(`${JSON.stringify({ ...result, checks })}\n`);
    log(`chaos-service: ${verdict.pushed} pushed, ${verdict.delivered} delivered, ${verdict.lost} lost, ${verdict.reordered} reordered, `
      + `${verdict.duplicates} duplicates; ${result.producerErrors} producer errors; balancer ${JSON.stringify(result.balancer)}; `
      + `${run.buffered.size} pushes answered buffered; consumers resumed ${resumeS.toFixed(1)} s after PostgreSQL returned (first buffered message `
      + `${result.firstBufferedDeliveredS} s, all messages pushed until then ${result.caughtUpS} s); broker ${rolled!.name} back in ${restartS.toFixed(1)} s`);
    for (const [check, ok] of Object.entries(checks)) log(`  ${ok ? 'ok  ' : 'FAIL'} ${check}`);
    return Object.values(checks).every(Boolean) ? 0 : 1;
  } finally {
    for (const c of [client, ...producerClients]) await c?.destroy().catch(() => undefined);
    await balancer?.close().catch(() => undefined);
    for (const slot of slots) await slot.stop().catch(() => undefined);
    await database?.stop().catch(() => undefined);
    log(`chaos-service: broker and PostgreSQL logs kept in ${folder}`);
    fs.rmSync(path.join(folder, 'pgdata'), { recursive: true, force: true, maxRetries: 5 });
  }
}
