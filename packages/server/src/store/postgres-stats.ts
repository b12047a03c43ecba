/**
 * PostgreSQL's own statistics for `GET …/analytics/postgres-stats` (docs/api.md 7.10): one call of
 * `queen.postgres_stats()` (sql/functions/postgres_stats.sql), which reads the statistics views
 * restricted to schema `queen` and returns the response body as JSON.
 */
import type { Db } from './database.js';

/** A cache-hit record: blocks served from shared buffers, blocks read, and hits / (hits + reads). */
interface CacheRecord {
  blocksHit: number;
  blocksRead: number;
  hitRatio: number | null;
}

/** The body of the postgres-stats route (every timestamp milliseconds ISO-8601 or null). */
export interface PostgresStats {
  timestamp: string;
  database: {
    name: string; sizeBytes: number; size: string; connections: number; maxConnections: number;
    transactionsCommitted: number; transactionsRolledBack: number; deadlocks: number; tempBytes: number; serverVersion: string;
  };
  databaseCache: CacheRecord;
  tableCache: Array<CacheRecord & { table: string }>;
  indexCache: Array<CacheRecord & { index: string; table: string }>;
  cacheSummary: { tableHitRatio: number | null; indexHitRatio: number | null; tablesTracked: number };
  deadTuples: Array<{
    table: string; liveTuples: number; deadTuples: number; deadRatio: number | null; lastVacuum: string | null; lastAutovacuum: string | null;
  }>;
  hotUpdates: Array<{ table: string; updates: number; hotUpdates: number; hotRatio: number | null }>;
  activeQueries: Array<{
    pid: number; applicationName: string; state: string | null; waitEventType: string | null; waitEvent: string | null;
    durationMs: number | null; query: string | null; // null for a caller without ADMIN
  }>;
  autovacuumStatus: Array<{
    table: string; lastAutovacuum: string | null; lastAutoanalyze: string | null; autovacuumCount: number;
    autoanalyzeCount: number; modificationsSinceAnalyze: number; running: boolean;
  }>;
  bufferConfig: {
    sharedBuffers: string; sharedBuffersBytes: number; effectiveCacheSize: string; workMem: string; maintenanceWorkMem: string;
    pgBuffercacheInstalled: boolean;
  };
  bufferUsage: Array<{ relation: string; buffers: number; bytes: number; percentOfSharedBuffers: number | null }>;
  tableSizes: Array<{
    table: string; totalBytes: number; tableBytes: number; indexBytes: number; toastBytes: number; totalSize: string; rowEstimate: number;
  }>;
}

/** Reads PostgreSQL's statistics for schema `queen`. */
export async function postgresStatsRead(db: Db): Promise<PostgresStats> {
  const result = await db.query<{ stats: PostgresStats }>('SELECT queen.postgres_stats() AS stats');
  return result.rows[0]!.stats;
}
