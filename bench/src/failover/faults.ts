/**
 * The faults the failover harness injects into the primary, how it waits for the engine to handle them, and
 * how recovery is measured from what the clients saw.
 *
 * - kill: SIGKILL to every process of the primary node (cluster.ts, signalNode): its pg_autoctl keeper, its
 *   postmaster and every backend. Killing only the postmaster is not a failover: the keeper sees PostgreSQL
 *   down and restarts it in place (a restart on the same host, which the chaos run covers). Afterwards (unless
 *   --no-rejoin) `pg_autoctl run` brings the old node back; it rewinds and rejoins as the standby.
 * - switchover: `pg_autoctl perform switchover`, which returns once the standby is the new primary.
 * - stall: SIGSTOP to every process of the node for --stall-seconds, then SIGCONT: backends included (a
 *   postmaster stopped alone still lets its backends answer and commit). The keeper is stopped too:
 *   a partitioned node's keeper cannot reach the monitor either, which is the case the monitor must promote
 *   through (with the keeper running, it would answer the monitor and nothing would be promoted). On
 *   loopback, a stopped server's kernel still accepts connections and acknowledges data, so clients see a
 *   server that hangs, not a dead socket: TCP keepalives and TCP_USER_TIMEOUT do not fire, only a client-side
 *   timeout does. After SIGCONT the keeper learns it was demoted and the node rejoins as the standby.
 *
 * Recovery (`recoveryS`): the seconds from the fault to the first committed push (every item `queued`, not
 * `buffered`) and to the first pop that returned messages, among requests sent after the fault and answered
 * once the new primary was writable (its report to the monitor, less a second: a node accepts writes just
 * before it reports so). The old primary cannot commit by then: it is dead, frozen with its commits waiting
 * for the synchronous standby that left it, or (switchover) demoted before the standby is promoted. A
 * broker whose failover buffer still holds pushes buffers new ones behind them (per-partition order), so the
 * first committed push also waits for a buffer replay.
 */
import { sleep } from '../scenarios/common.js';
import type { AutoFailoverCluster } from './cluster.js';
import { promotionFrom, type Promotion } from './engine.js';
import type { Fault } from './options.js';

const PROMOTION_TIMEOUT_MS = 120_000;
const HEALTHY_TIMEOUT_MS = 240_000;

/** What happened when a fault was injected. */
export interface FaultOutcome {
  fault: Fault;
  oldPrimary: string;
  /** Wall-clock ms of the fault (the signal, or the switchover command). */
  faultAt: number;
  /** The engine's promotion, from its events; undefined when none came within two minutes. */
  promotion: Promotion | undefined;
}

/** Injects `fault` into the current primary and waits for the promotion (and the end of a stall). */
export async function injectFault(cluster: AutoFailoverCluster, fault: Fault, stallS: number,
  log: (line: string) => void): Promise<FaultOutcome> {
  const oldPrimary = await cluster.primary();
  if (oldPrimary === undefined) throw new Error(`no primary to inject ${fault} into: ${JSON.stringify(await cluster.nodes())}`);
  const lastEvent = (await cluster.events()).at(-1)?.id ?? 0;
  const faultAt = Date.now();
  let promotion: Promotion | undefined;
  const poll = async (until: number): Promise<void> => {
    while (promotion === undefined && Date.now() < until) {
      promotion = promotionFrom(await cluster.events(lastEvent), oldPrimary, faultAt);
      if (promotion === undefined) await sleep(250);
    }
  };
  if (fault === 'kill') {
    const postmaster = cluster.postmasterPid(oldPrimary);
    cluster.signalNode(oldPrimary, 'SIGKILL');
    log(`failover: kill: SIGKILL to ${oldPrimary}'s keeper, postmaster (pid ${postmaster}) and backends`);
    await poll(faultAt + PROMOTION_TIMEOUT_MS);
  } else if (fault === 'switchover') {
    log(`failover: switchover: pg_autoctl perform switchover (primary ${oldPrimary})`);
    await cluster.switchover();
    await poll(Date.now() + PROMOTION_TIMEOUT_MS);
  } else {
    cluster.signalNode(oldPrimary, 'SIGSTOP');
    log(`failover: stall: SIGSTOP to ${oldPrimary}'s keeper, postmaster and backends for ${stallS} s`);
    await poll(faultAt + stallS * 1000);
    const wait = faultAt + stallS * 1000 - Date.now();
    if (wait > 0) await sleep(wait);
    cluster.signalNode(oldPrimary, 'SIGCONT');
    log(`failover: stall: SIGCONT to ${oldPrimary}`);
    await poll(faultAt + PROMOTION_TIMEOUT_MS);
  }
  log(promotion === undefined
    ? `failover: ${fault}: NO promotion within ${PROMOTION_TIMEOUT_MS / 1000} s`
    : `failover: ${fault}: ${promotion.newPrimary} writable ${promotion.promotedS.toFixed(1)} s after the fault (${promotion.timeline.join(', ')})`);
  return { fault, oldPrimary, faultAt, promotion };
}

/** Brings the cluster back to a primary and a secondary after a fault (a killed node is started again). */
export async function restore(cluster: AutoFailoverCluster, outcome: FaultOutcome, log: (line: string) => void): Promise<number> {
  const began = Date.now();
  if (outcome.fault === 'kill') cluster.restartNode(outcome.oldPrimary);
  await cluster.waitHealthy(HEALTHY_TIMEOUT_MS);
  const seconds = (Date.now() - began) / 1000;
  log(`failover: ${outcome.fault}: ${outcome.oldPrimary} back as the standby after ${seconds.toFixed(1)} s; primary ${await cluster.primary()}`);
  return seconds;
}

/** One success: when its request was sent and when its answer came (wall-clock ms). */
export interface Success {
  sentAt: number;
  doneAt: number;
}

/** How much earlier than its report to the monitor a promoted node may already accept writes. */
const PROMOTION_SLACK_MS = 1000;

/**
 * Seconds from `faultAt` to the first success of a request sent after the fault and answered once the new
 * primary was writable (`promotedAt`, wall-clock ms, less PROMOTION_SLACK_MS); NaN when there is none.
 */
export function recoveryS(successes: readonly Success[], faultAt: number, promotedAt: number): number {
  let first = Infinity;
  for (const s of successes) {
    if (s.sentAt >= faultAt && s.doneAt >= promotedAt - PROMOTION_SLACK_MS && s.doneAt < first) first = s.doneAt;
  }
  return Number.isFinite(first) ? (first - faultAt) / 1000 : NaN;
}
