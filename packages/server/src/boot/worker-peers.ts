/**
 * A worker's side of the primary's channel (QUEEN_WORKERS > 1, boot/workers.ts): it answers the primary's
 * requests for its snapshot, and asks the primary for every worker's (for `/health`, `/ready`, `/metrics`,
 * which answer for the whole port). The messages go over node:cluster's IPC channel; each carries `queen`,
 * so other messages on the channel are left alone.
 */
import { healthAnswer, readyAnswer } from '../http/routes/health.js';
import type { RouteContext } from '../http/context.js';
import type { Collected, WorkerPeers, WorkerSnapshot } from '../metrics/workers.js';

/** The messages between a primary and its workers. */
export type PeerMessage =
  | { queen: 'ready'; port: number }
  | { queen: 'collect'; id: number }
  | { queen: 'collected'; id: number; collected: Collected }
  | { queen: 'snapshot?'; id: number }
  | { queen: 'snapshot'; id: number; snapshot: WorkerSnapshot };

/** True for a message of this protocol. */
export function isPeerMessage(message: unknown): message is PeerMessage {
  return typeof message === 'object' && message !== null && typeof (message as { queen?: unknown }).queen === 'string';
}

/** How long a worker waits for its primary's collected answer (the primary itself waits less for each worker). */
const COLLECT_WAIT_MS = 5000;

/** This worker's snapshot: its health and readiness answers and its metrics. */
async function snapshotOf(index: number, core: RouteContext): Promise<WorkerSnapshot> {
  const [health, prometheus] = await Promise.all([healthAnswer(core), core.metrics.prometheus.registry.getMetricsAsJSON()]);
  const ready = readyAnswer(core);
  return { index, pid: process.pid, health: { status: health.status }, ready: { status: ready.status, reason: ready.body.reason }, summary: core.metrics.summary(), prometheus };
}

/** Joins the primary's channel as worker `index`; `core` is read when the primary asks (the route context being built). */
export function joinWorkers(index: number, core: () => RouteContext): WorkerPeers {
  const send = (message: PeerMessage): void => void process.send?.(message);
  const pending = new Map<number, (collected: Collected) => void>();
  let next = 0;
  process.on('message', (message: unknown) => {
    if (!isPeerMessage(message)) return;
    if (message.queen === 'snapshot?') {
      snapshotOf(index, core()).then((snapshot) => send({ queen: 'snapshot', id: message.id, snapshot }), () => undefined);
    } else if (message.queen === 'collected') {
      pending.get(message.id)?.(message.collected);
      pending.delete(message.id);
    }
  });
  return {
    index,
    collect: () =>
      new Promise<Collected>((resolve, reject) => {
        const id = next++;
        // A primary that does not answer (it is gone: this worker is about to stop) leaves this worker's own figures.
        const timer = setTimeout(() => {
          pending.delete(id);
          snapshotOf(index, core()).then((own) => resolve({ slots: [{ index, pid: process.pid, state: 'serving' }], snapshots: [own] }), reject);
        }, COLLECT_WAIT_MS);
        pending.set(id, (collected) => {
          clearTimeout(timer);
          resolve(collected);
        });
        send({ queen: 'collect', id });
      }),
  };
}

/** Tells the primary this worker serves (it prints the ready line once every worker does). */
export function announceReady(port: number): void {
  process.send?.({ queen: 'ready', port } satisfies PeerMessage);
}
