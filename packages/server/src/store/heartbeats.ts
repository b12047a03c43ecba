/**
 * Broker process rows (`queen.server_heartbeats`, docs/api.md 9.2 rule 4): the heartbeat of this process, its
 * clean stop, and the reads of the status routes (workers, parked pops per replica).
 */
import type { Db } from './database.js';

/** Who this process is: the identity its heartbeat row and its metrics are stored under. */
export interface ProcessIdentity {
  serverId: string;
  hostname: string;
  pid: number;
  port: number;
}

/** Cluster health as `GET /health` reports it (`shared_state.server_health`). */
export interface ServerHealth {
  serversTracked: number;
  serversAlive: number;
  serversDead: number;
  heartbeatsReceived: number;
  restartsDetected: number;
}

/** Records one heartbeat of this process; returns the cluster's health as of this beat. */
export async function serverHeartbeat(
  db: Db,
  params: ProcessIdentity & { startedAt: string; parked: number; parkedByQueue: Record<string, number>; aliveSeconds: number },
): Promise<ServerHealth> {
  const result = await db.query<ServerHealth>(
    `SELECT h.servers_tracked::float8 AS "serversTracked", h.servers_alive::float8 AS "serversAlive",
            h.servers_dead::float8 AS "serversDead", h.heartbeats_received::float8 AS "heartbeatsReceived",
            h.restarts_detected::float8 AS "restartsDetected"
     FROM queen.server_heartbeat($1, $2, $3, $4, $5::timestamptz, $6, $7::jsonb, $8) h`,
    [params.serverId, params.hostname, params.pid, params.port, params.startedAt, params.parked,
      JSON.stringify(params.parkedByQueue), params.aliveSeconds],
  );
  return result.rows[0]!;
}

/** Marks this incarnation as stopped cleanly: it is then neither alive nor dead. */
export async function serverStop(db: Db, params: { serverId: string; startedAt: string }): Promise<void> {
  await db.query(
    `UPDATE queen.server_heartbeats SET stopped_at = now(), parked_pops = 0, parked_by_queue = '{}'
     WHERE server_id = $1 AND started_at = $2::timestamptz`,
    [params.serverId, params.startedAt],
  );
}

/** One broker process as the status routes list it. */
export interface ServerRow {
  serverId: string;
  hostname: string;
  pid: number;
  port: number;
  startedAt: string;
  lastHeartbeatAt: string;
  stoppedAt: string | null;
  parkedPops: number;
}

/**
 * The processes that were up at some point of [from, to] (started before `to`, last seen after `from`), in
 * server_id order, optionally only those of one hostname or one server_id.
 */
export async function serverList(
  db: Db,
  params: { from: Date; to: Date; hostname: string | null; serverId: string | null },
): Promise<ServerRow[]> {
  const result = await db.query<ServerRow>(
    `SELECT h.server_id AS "serverId", h.hostname, h.pid, h.port, queen.format_millis(h.started_at) AS "startedAt",
            queen.format_millis(h.last_heartbeat_at) AS "lastHeartbeatAt",
            queen.format_millis(h.stopped_at) AS "stoppedAt", h.parked_pops AS "parkedPops"
     FROM queen.server_heartbeats h
     WHERE h.started_at <= $2 AND h.last_heartbeat_at >= $1
       AND ($3::text IS NULL OR h.hostname = $3) AND ($4::text IS NULL OR h.server_id = $4)
     ORDER BY h.server_id`,
    [params.from, params.to, params.hostname, params.serverId],
  );
  return result.rows;
}

/** Parked pops of one queue on one live process. */
export interface ParkedReplica {
  queue: string;
  serverId: string;
  parked: number;
  updatedAt: string;
}

/** Parked pops per (queue, live process) as of each process's last heartbeat, optionally for one queue. */
export async function parkedReplicaList(db: Db, params: { queue: string | null; aliveSeconds: number }): Promise<ParkedReplica[]> {
  const result = await db.query<ParkedReplica>(
    `SELECT p.key AS queue, h.server_id AS "serverId", p.value::integer AS parked,
            queen.format_millis(h.last_heartbeat_at) AS "updatedAt"
     FROM queen.server_heartbeats h, jsonb_each_text(h.parked_by_queue) p
     WHERE h.stopped_at IS NULL AND h.last_heartbeat_at > now() - make_interval(secs => $2)
       AND ($1::text IS NULL OR p.key = $1)
     ORDER BY p.key, h.server_id`,
    [params.queue, params.aliveSeconds],
  );
  return result.rows;
}

/** A live broker process as `GET …/system/shared-state` lists it. */
export interface LiveServer {
  serverId: string;
  hostname: string;
  pid: number;
  port: number;
  startedAt: string;
  lastHeartbeatAt: string;
  parkedPops: number;
}

/** The processes alive now (not stopped, a heartbeat within `aliveSeconds`), in server_id order. */
export async function serverAliveList(db: Db, params: { aliveSeconds: number }): Promise<LiveServer[]> {
  const result = await db.query<LiveServer>(
    `SELECT h.server_id AS "serverId", h.hostname, h.pid, h.port, queen.format_millis(h.started_at) AS "startedAt",
            queen.format_millis(h.last_heartbeat_at) AS "lastHeartbeatAt", h.parked_pops AS "parkedPops"
     FROM queen.server_heartbeats h
     WHERE h.stopped_at IS NULL AND h.last_heartbeat_at > now() - make_interval(secs => $1)
     ORDER BY h.server_id`,
    [params.aliveSeconds],
  );
  return result.rows;
}
