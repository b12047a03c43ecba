/**
 * What the failover harness knows about pg_auto_failover: where it is installed, the failover timing it is
 * tuned to, and how a promotion reads in the monitor's events.
 *
 * Timing. pg_auto_failover's defaults are made for production (a failover after ~30-50 s). The harness makes
 * the monitor notice a dead node in about 2 s and promote after a further 8 s:
 * - monitor GUCs (MONITOR_TUNING): a health check every second (health_check_period), each given 2 s
 *   (health_check_timeout) and retried once after 500 ms; a node is unhealthy when its health check fails and
 *   its keeper has not reported for node_considered_unhealthy_timeout (3 s). When the primary is unhealthy, the
 *   monitor moves the standby to prepare_promotion, then stop_replication, and waits primary_demote_timeout
 *   (8 s) for the old primary to demote itself before the standby becomes wait_primary (writable).
 * - keeper setting (KEEPER_TUNING): a primary whose keeper can reach neither the monitor nor its standby for
 *   timeout.network_partition_timeout (5 s) demotes itself. primary_demote_timeout must stay above it: that
 *   is what keeps a partitioned old primary from accepting writes after the standby was promoted.
 * The promotion can therefore not take less than about 3 s + 8 s after a node dies; the harness reports the
 * measured figure from the events.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EngineEvent } from './cluster.js';

/** The monitor's GUCs, set by ALTER SYSTEM before the nodes register. */
export const MONITOR_TUNING: Readonly<Record<string, number>> = {
  'pgautofailover.health_check_period': 1000,
  'pgautofailover.health_check_timeout': 2000,
  'pgautofailover.health_check_max_retries': 1,
  'pgautofailover.health_check_retry_delay': 500,
  'pgautofailover.node_considered_unhealthy_timeout': 3000,
  'pgautofailover.primary_demote_timeout': 8000,
};

/** The keepers' settings, by `pg_autoctl config set`. */
export const KEEPER_TUNING: Readonly<Record<string, number>> = {
  'timeout.network_partition_timeout': 5,
};

/** Where pg_autoctl and the PostgreSQL binaries its extension was built for are. */
export interface PgAutoctlInstall {
  pgAutoctl: string;
  /** The PostgreSQL bin directory (pg_ctl, initdb, postgres). */
  binDir: string;
}

/** The install hint of every "not found" error. */
export const INSTALL_HINT = 'install the Debian packages postgresql-15-auto-failover and pg-auto-failover-cli ' +
  '(apt-get install postgresql-15-auto-failover pg-auto-failover-cli; .ci/run does it)';

/** Finds pg_autoctl and a PostgreSQL with the pgautofailover extension; throws with the install hint. */
export function findPgAutoctl(): PgAutoctlInstall {
  const candidates = [process.env['PG_AUTOCTL'], '/usr/bin/pg_autoctl', '/usr/local/bin/pg_autoctl']
    .filter((p): p is string => p !== undefined && p !== '');
  const pgAutoctl = candidates.find((p) => fs.existsSync(p));
  if (pgAutoctl === undefined) throw new Error(`pg_autoctl not found: ${INSTALL_HINT}`);
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  const version = versions.find((v) => fs.existsSync(path.join(root, v, 'lib', 'pgautofailover.so')) &&
    fs.existsSync(path.join(root, v, 'bin', 'pg_ctl')));
  if (version === undefined) throw new Error(`no PostgreSQL with the pgautofailover extension under ${root}: ${INSTALL_HINT}`);
  return { pgAutoctl, binDir: path.join(root, version, 'bin') };
}

/** How the engine handled one fault, from its events. */
export interface Promotion {
  /** The node that became primary. */
  newPrimary: string;
  /** Seconds from the fault to the monitor marking the old primary unhealthy (NaN if it never did). */
  detectedS: number;
  /** Seconds from the fault to the new primary reporting wait_primary or primary (writable). */
  promotedS: number;
  /** The state names the nodes reported, in order, for the report. */
  timeline: string[];
}

/**
 * Reads a promotion away from `oldPrimary` in the events that follow the fault (`faultAt`, wall-clock ms);
 * undefined when no other node reported itself writable.
 */
export function promotionFrom(events: readonly EngineEvent[], oldPrimary: string, faultAt: number): Promotion | undefined {
  const after = events.filter((e) => e.at >= faultAt - 1000);
  const reported = (e: EngineEvent): boolean => e.description.startsWith('New state is reported');
  const promoted = after.find((e) => e.node !== oldPrimary && reported(e) && (e.reported === 'wait_primary' || e.reported === 'primary'));
  if (promoted === undefined) return undefined;
  const detected = after.find((e) => e.node === oldPrimary && /marked as unhealthy/.test(e.description));
  const timeline = after.filter((e) => reported(e) && e.at <= promoted.at)
    .map((e) => `${e.node} ${e.reported} +${((e.at - faultAt) / 1000).toFixed(1)}s`);
  return {
    newPrimary: promoted.node,
    detectedS: detected === undefined ? NaN : (detected.at - faultAt) / 1000,
    promotedS: (promoted.at - faultAt) / 1000,
    timeline,
  };
}
