/**
 * The maintenance flags and the cluster identity (`queen.system_state`, sql/migrations/0009_maintenance_buffer.sql, sql/functions/maintenance_set.sql): read by every
 * process once a second, changed through `queen.maintenance_set` (which notifies every process).
 */
import type { Db } from './database.js';

/** The maintenance flags and the version of their last change. */
export interface MaintenanceFlags {
  push: boolean;
  pop: boolean;
  version: number;
}

interface Row {
  push_maintenance: boolean;
  pop_maintenance: boolean;
  version: string;
}

const toFlags = (row: Row): MaintenanceFlags => ({ push: row.push_maintenance, pop: row.pop_maintenance, version: Number(row.version) });

/** Reads the flags. */
export async function maintenanceRead(db: Db): Promise<MaintenanceFlags> {
  const result = await db.query<Row>('SELECT push_maintenance, pop_maintenance, version FROM queen.system_state');
  return toFlags(result.rows[0]!);
}

/** Turns one flag on or off; every broker process is notified at commit. Returns the new state. */
export async function maintenanceSet(db: Db, params: { kind: 'push' | 'pop'; enabled: boolean }): Promise<MaintenanceFlags> {
  const result = await db.query<Row>('SELECT * FROM queen.maintenance_set($1, $2)', [params.kind, params.enabled]);
  return toFlags(result.rows[0]!);
}

/** The identity of this database: the failover buffer only adopts leftover files recorded under the same one. */
export async function clusterIdRead(db: Db): Promise<string> {
  const result = await db.query<{ cluster_id: string }>('SELECT cluster_id::text AS cluster_id FROM queen.system_state');
  return result.rows[0]!.cluster_id;
}
