/**
 * The primary of QUEEN_WORKERS > 1 (docs/decisions.md "Workers"): it starts the embedded PostgreSQL (when no
 * database is configured), forks the workers (node:cluster: they share the port; the primary accepts and hands
 * each connection to the next worker), replaces a worker that dies at once, answers the workers' requests for
 * every worker's snapshot (boot/worker-peers.ts) and, on SIGTERM/SIGINT, lets every worker drain before it
 * stops PostgreSQL, last.
 *
 * Worker 0 starts first and applies the migrations; the others are forked once it serves. Each worker is a whole
 * broker (broker.ts) with its own pool, server id and failover-buffer directory: what several brokers on one
 * database already share (migrations under their advisory lock, the once-per-cluster
 * jobs under theirs, wake-ups over LISTEN/NOTIFY) needs nothing more. A replacement worker has a new pid, so
 * its predecessor's buffer directory is an orphan of a dead process on this host, adopted at its start
 * (buffer/ownership.ts); with SERVER_ID set, the slot's id (`<SERVER_ID>-w<n>`) is kept and the directory is its own.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config.js';
import { createLogger } from '../logger.js';
import type { Collected, WorkerSlot, WorkerSnapshot } from '../metrics/workers.js';
import type { EmbeddedServer } from '../store/embedded.js';
import { startEmbedded } from './database.js';
import { isPeerMessage, type PeerMessage } from './worker-peers.js';

/** How long the primary waits for each worker's snapshot: a worker that does not answer is listed as such. */
const SNAPSHOT_WAIT_MS = 2000;
/** A worker that fails before it ever served is replaced after this pause (a broken start-up must not spin). */
const FAILED_START_PAUSE_MS = 1000;

interface Slot {
  worker: Worker | null;
  state: WorkerSlot['state'];
}

/** Runs the primary until SIGTERM/SIGINT (`readyLine` says where it listens, printed once every worker serves); resolves with the exit code. */
export async function runPrimary(config: Config, readyLine: (port: number) => string): Promise<number> {
  const log = createLogger(config.logLevel, `${config.serverId}/primary`, config.logFormat);
  let embedded: EmbeddedServer | null = null;
  if (config.database.kind === 'embedded') embedded = await startEmbedded(config, log);
  const slots: Slot[] = [];
  let stopping = false;
  let everyoneServed = false;
  let exitCode = 0;
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => (finish = resolve));

  const collections = new Map<number, { replies: WorkerSnapshot[]; waiting: number; done: () => void }>();
  let nextCollection = 0;
  const slotStates = (): WorkerSlot[] => slots.map((slot, index) => ({ index, pid: slot.worker?.process.pid ?? null, state: slot.state }));

  /** Asks every live worker for its snapshot and answers `requester` with all of them. */
  const collect = (requester: Worker, requestId: number): void => {
    const id = nextCollection++;
    const live = slots.map((s) => s.worker).filter((w): w is Worker => w !== null && w.isConnected());
    const entry = { replies: [] as WorkerSnapshot[], waiting: live.length, done: () => undefined as void };
    const timer = setTimeout(() => entry.done(), SNAPSHOT_WAIT_MS);
    entry.done = () => {
      clearTimeout(timer);
      if (!collections.delete(id)) return;
      const collected: Collected = { slots: slotStates(), snapshots: entry.replies };
      if (requester.isConnected()) requester.send({ queen: 'collected', id: requestId, collected } satisfies PeerMessage);
    };
    collections.set(id, entry);
    for (const worker of live) worker.send({ queen: 'snapshot?', id } satisfies PeerMessage);
    if (live.length === 0) entry.done();
  };

  const onMessage = (index: number, worker: Worker, message: PeerMessage): void => {
    switch (message.queen) {
      case 'ready':
        slots[index]!.state = 'serving';
        // The first worker has migrated the schema: the others start now (see the loop at the end).
        if (!stopping && index === 0 && slots.length === 1) for (let next = 1; next < config.workers; next++) fork(next);
        if (!everyoneServed && slots.length === config.workers && slots.every((s) => s.state === 'serving')) {
          everyoneServed = true;
          log.info(`${readyLine(message.port)} with ${slots.length} workers`);
        }
        return;
      case 'collect':
        return collect(worker, message.id);
      case 'snapshot': {
        const entry = collections.get(message.id);
        if (entry === undefined) return;
        entry.replies.push(message.snapshot);
        if (--entry.waiting === 0) entry.done();
        return;
      }
      default:
        return;
    }
  };

  const fork = (index: number): void => {
    const worker = cluster.fork({ QUEEN_WORKER_INDEX: String(index), QUEEN_WORKER_PG_PORT: String(embedded?.port ?? 0) });
    slots[index] = { worker, state: slots[index] === undefined ? 'starting' : 'restarting' };
    worker.on('message', (message: unknown) => {
      if (isPeerMessage(message)) onMessage(index, worker, message);
    });
    worker.on('exit', (code, signal) => onExit(index, worker, code, signal));
  };

  const onExit = (index: number, worker: Worker, code: number | null, signal: string | null): void => {
    const slot = slots[index]!;
    if (slot.worker !== worker) return;
    const served = slot.state === 'serving';
    slot.worker = null;
    slot.state = 'restarting';
    if (stopping) {
      if (slots.every((s) => s.worker === null)) finish(exitCode);
      return;
    }
    if (!everyoneServed && !served) {
      // Start-up failed (the worker printed why): stop the others and exit as a single broker would.
      log.error(`worker ${index} failed to start (${signal ?? `exit code ${code}`}): stopping`);
      void shutdown('start-up failure', 1);
      return;
    }
    log.error({ worker: index, pid: worker.process.pid, code, signal }, `worker ${index} died (${signal ?? `exit code ${code}`}): starting its replacement`);
    if (served) fork(index);
    else setTimeout(() => !stopping && fork(index), FAILED_START_PAUSE_MS);
  };

  const shutdown = async (reason: string, code = 0): Promise<void> => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    log.info({ reason }, 'shutting down: the workers drain, then PostgreSQL stops');
    const live = slots.filter((s) => s.worker !== null);
    if (live.length === 0) finish(code);
    for (const slot of live) slot.worker!.process.kill('SIGTERM');
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second signal: the operator does not want to wait for the drain.
      for (const slot of slots) slot.worker?.process.kill('SIGKILL');
      return;
    }
    void shutdown(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  // One worker first: it applies the migrations (under their advisory lock, which the others would wait for, each
  // wait bounded by DB_STATEMENT_TIMEOUT); the others are forked once it serves.
  fork(0);
  await finished;
  await embedded?.stop();
  log.info('Queen broker stopped');
  return exitCode;
}

/** True in the primary of a multi-worker broker: QUEEN_WORKERS > 1 and not itself a worker. */
export function isPrimary(config: Config): boolean {
  return config.workers > 1 && config.worker === null;
}
