/**
 * The statements of a database move (docs/operations.md "Moving to another PostgreSQL"): the move's row, the
 * checks of both servers, the publication on the source and the subscription on the target, the fence, the
 * marker that proves the target caught up, sequences, row counts, and the offline copy.
 *
 * The driver works on sessions of its own (application_name `queen-move`), never on the pool: the fence ends
 * every `queen:` session on the source, and the driver's control session, opened before the fence, keeps its
 * right to write (it clears the fence on a rollback). Identifiers are the catalogue's own table names, quoted
 * with the driver's `escapeIdentifier`; CREATE SUBSCRIPTION takes no parameters, so its connection string is
 * one quoted literal.
 */
import pg from 'pg';
import { migrate } from './migrations.js';

/** Where a move goes: upstream's body. */
export interface MoveTarget {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
  ssl: boolean;
}

/** The stored move: the target without its password (kept sealed). */
export interface MoveRow {
  id: string;
  mode: 'online' | 'offline';
  phase: string;
  target: Omit<MoveTarget, 'password'>;
  sealedPassword: Buffer;
  driver: string;
  error: string | null;
  progress: Record<string, unknown>;
  startedAt: string;
  updatedAt: string;
  switchedAt: string | null;
  /** Seconds since the driver last reported. */
  silentSeconds: number;
}

/** A session of the move's own (the control session on the source, or one on the target). */
export type MoveSession = pg.Client;

/** A pool or a client. */
type Queryable = Pick<pg.Pool, 'query'>;

const NAME = 'queen_move';
/** Tables each database keeps for itself: the schema ledgers and the move's own row. */
const UNPUBLISHED = ['migrations', 'function_files', 'database_move'];

const ROW = `SELECT id, mode, phase, target_host AS host, target_port AS port, target_database AS database, target_user AS "user",
  target_ssl AS ssl, target_password AS "sealedPassword", driver, error, progress,
  to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "startedAt",
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt",
  to_char(switched_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "switchedAt",
  extract(epoch FROM now() - updated_at)::float8 AS "silentSeconds"
  FROM queen.database_move`;

/** The move's row, or null (none, or a database migrated before 0020). */
export async function moveRead(db: Queryable): Promise<MoveRow | null> {
  const exists = await db.query<{ t: string | null }>(`SELECT to_regclass('queen.database_move')::text AS t`);
  if (exists.rows[0]?.t == null) return null;
  const { rows } = await db.query<Omit<MoveRow, 'target'> & Omit<MoveTarget, 'password'>>(ROW);
  const row = rows[0];
  if (row === undefined) return null;
  const { host, port, database, user, ssl, ...rest } = row;
  return { ...rest, target: { host, port, database, user, ssl } };
}

/** Records a new move; false when one is under way (a row not `complete`, `error` or `cancelled`). */
export async function moveInsert(db: Queryable, row: { id: string; mode: string; phase: string; target: Omit<MoveTarget, 'password'>; sealedPassword: Buffer; driver: string }): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO queen.database_move AS m (id, mode, phase, target_host, target_port, target_database, target_user, target_password, target_ssl, driver)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (singleton) DO UPDATE SET id = EXCLUDED.id, mode = EXCLUDED.mode, phase = EXCLUDED.phase, target_host = EXCLUDED.target_host,
       target_port = EXCLUDED.target_port, target_database = EXCLUDED.target_database, target_user = EXCLUDED.target_user,
       target_password = EXCLUDED.target_password, target_ssl = EXCLUDED.target_ssl, driver = EXCLUDED.driver, error = NULL,
       progress = '{}', started_at = now(), updated_at = now(), switched_at = NULL
     WHERE m.phase IN ('complete', 'error', 'cancelled')`,
    [row.id, row.mode, row.phase, row.target.host, row.target.port, row.target.database, row.target.user, row.sealedPassword, row.target.ssl, row.driver],
  );
  return rowCount === 1;
}

/** Moves the row of move `id` on (phase, error, progress; `switched` stamps switched_at); false when it is not the current move. */
export async function moveUpdate(db: Queryable, id: string, change: { phase?: string; error?: string | null; progress?: Record<string, unknown>; switched?: boolean; driver?: string }): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE queen.database_move SET phase = coalesce($2, phase), error = CASE WHEN $3::boolean THEN $4 ELSE error END,
       progress = progress || coalesce($5::jsonb, '{}'), switched_at = CASE WHEN $6::boolean THEN now() ELSE switched_at END,
       driver = coalesce($7, driver), updated_at = now()
     WHERE id = $1`,
    [id, change.phase ?? null, change.error !== undefined, change.error ?? null, change.progress === undefined ? null : JSON.stringify(change.progress), change.switched === true, change.driver ?? null],
  );
  return rowCount === 1;
}

/** Deletes the move's row (a finished move cleared). */
export async function moveDelete(db: Queryable): Promise<void> {
  await db.query('DELETE FROM queen.database_move');
}

/** Copies the row (as the source holds it) into the target, so the target answers the status once brokers moved. */
export async function moveCopyRow(source: Queryable, target: Queryable): Promise<void> {
  const row = await moveRead(source);
  if (row === null) return;
  await target.query('DELETE FROM queen.database_move');
  await moveInsert(target, row);
  await target.query(`UPDATE queen.database_move SET phase = $1, error = $2, progress = $3, switched_at = now(), started_at = $4 WHERE id = $5`, [row.phase, row.error, JSON.stringify(row.progress), row.startedAt, row.id]);
}

/** Takes over the move whose driver has been silent for `staleSeconds`; true when this caller drives it now. */
export async function moveClaim(db: Queryable, id: string, driver: string, staleSeconds: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE queen.database_move SET driver = $2, updated_at = now() WHERE id = $1 AND (driver = $2 OR updated_at < now() - make_interval(secs => $3))`,
    [id, driver, staleSeconds],
  );
  return rowCount === 1;
}

/** Opens a session on `target` (its own application name), within `timeoutMs`. */
export async function openSession(target: MoveTarget, applicationName: string, timeoutMs: number): Promise<pg.Client> {
  const client = new pg.Client({
    host: target.host, port: target.port, database: target.database, user: target.user, password: target.password,
    ssl: target.ssl ? { rejectUnauthorized: false } : false, application_name: applicationName, connectionTimeoutMillis: timeoutMs,
    // Past the fence: a driver that takes over mid-switch must still clear it.
    options: '-c TimeZone=UTC -c default_transaction_read_only=off',
  });
  client.on('error', () => undefined); // a lost session fails its next statement, where it is handled
  await client.connect();
  return client;
}

/** What a server says about itself and the session's role. */
export interface ServerFacts {
  version: string;
  versionNum: number;
  walLevel: string;
  superuser: boolean;
  /** The role may create a replication slot (superuser or REPLICATION). */
  replication: boolean;
  /** The role may create a subscription (superuser, or pg_create_subscription on PostgreSQL 16+). */
  subscribe: boolean;
  /** No queue, message or consumer state in the database. */
  empty: boolean;
}

/** The facts of the server `db` is connected to. */
export async function serverFacts(db: Queryable): Promise<ServerFacts> {
  const { rows } = await db.query<Omit<ServerFacts, 'empty'>>(
    `SELECT split_part(version(), ' ', 2) AS version, current_setting('server_version_num')::int AS "versionNum",
       current_setting('wal_level') AS "walLevel", r.rolsuper AS superuser, (r.rolsuper OR r.rolreplication) AS replication,
       CASE WHEN r.rolsuper THEN true WHEN to_regrole('pg_create_subscription') IS NULL THEN false
         ELSE pg_has_role(current_user, 'pg_create_subscription', 'MEMBER') END AS subscribe
     FROM pg_roles r WHERE r.rolname = current_user`,
  );
  const exists = await db.query<{ t: string | null }>(`SELECT to_regclass('queen.segments')::text AS t`);
  let empty = true;
  if (exists.rows[0]?.t != null) {
    const held = await db.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM queen.queues) OR EXISTS (SELECT 1 FROM queen.segments) AS any`);
    empty = held.rows[0]?.any !== true;
  }
  return { ...rows[0]!, empty };
}

/** The broker's schema on `target`, by the broker's own migrations (a small pool of the move's sessions). */
export async function migrateTarget(target: MoveTarget, applicationName: string, timeoutMs: number): Promise<void> {
  const pool = new pg.Pool({
    host: target.host, port: target.port, database: target.database, user: target.user, password: target.password,
    ssl: target.ssl ? { rejectUnauthorized: false } : false, application_name: applicationName, connectionTimeoutMillis: timeoutMs, max: 1,
    options: '-c TimeZone=UTC',
  });
  pool.on('error', () => undefined);
  try {
    await migrate(pool);
  } finally {
    await pool.end();
  }
}

/** The broker's tables that move, schema-qualified and quoted where needed (every table of queen and queen_streams but the ledgers). */
export async function movedTables(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
     WHERE schemaname IN ('queen', 'queen_streams') AND NOT (schemaname = 'queen' AND tablename = ANY($1)) ORDER BY 1`,
    [UNPUBLISHED],
  );
  return rows.map((r) => r.name);
}

/** Publishes `tables` on the source; a table without a primary key gets REPLICA IDENTITY FULL (updates and deletes need one). */
export async function publish(source: pg.Client, tables: string[]): Promise<void> {
  const keyless = await source.query<{ t: string }>(
    `SELECT c.oid::regclass::text AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname IN ('queen', 'queen_streams') AND c.relkind = 'r' AND c.relreplident = 'd'
       AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary)`,
  );
  for (const { t } of keyless.rows) await source.query(`ALTER TABLE ${t} REPLICA IDENTITY FULL`);
  await source.query(`DROP PUBLICATION IF EXISTS ${NAME}`);
  await source.query(`CREATE PUBLICATION ${NAME} FOR TABLE ${tables.join(', ')}`);
}

/** Empties `tables` on the target (the rows its migrations seeded come from the source). */
export async function emptyTables(target: pg.Client, tables: string[]): Promise<void> {
  await target.query(`TRUNCATE ${tables.join(', ')}`);
}

/** The source as the target's subscription reaches it, one libpq connection string. */
export function connectionString(source: MoveTarget): string {
  const quote = (value: string): string => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return [`host=${quote(source.host)}`, `port=${source.port}`, `dbname=${quote(source.database)}`, `user=${quote(source.user)}`,
    `password=${quote(source.password)}`, `sslmode=${source.ssl ? 'require' : 'prefer'}`].join(' ');
}

/** Subscribes the target to the source's publication (copying the existing rows first). */
export async function subscribe(target: pg.Client, source: MoveTarget): Promise<void> {
  await target.query(`CREATE SUBSCRIPTION ${NAME} CONNECTION ${target.escapeLiteral(connectionString(source))} PUBLICATION ${NAME} WITH (copy_data = true)`);
}

/** The copy's progress on the target: tables subscribed and tables whose initial copy is done. */
export async function copyProgress(target: pg.Client): Promise<{ tables: number; copied: number }> {
  const { rows } = await target.query<{ tables: number; copied: number }>(
    `SELECT count(*)::int AS tables, count(*) FILTER (WHERE r.srsubstate IN ('r', 's'))::int AS copied
     FROM pg_subscription_rel r JOIN pg_subscription s ON s.oid = r.srsubid WHERE s.subname = $1`, [NAME],
  );
  return rows[0]!;
}

/** Bytes of WAL the target has not confirmed yet (null without the slot). */
export async function lagBytes(source: pg.Client): Promise<number | null> {
  const { rows } = await source.query<{ lag: string | null }>(
    `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint::text AS lag FROM pg_replication_slots WHERE slot_name = $1`, [NAME],
  );
  return rows[0]?.lag == null ? null : Number(rows[0].lag);
}

/** Makes the source refuse every broker write: new sessions read-only, every `queen:` session ended. */
export async function fence(source: pg.Client, database: string): Promise<void> {
  await source.query(`ALTER DATABASE ${source.escapeIdentifier(database)} SET default_transaction_read_only = on`);
  await endBrokerSessions(source);
}

/** Clears the fence and ends the sessions opened while it held (they stay read-only otherwise). */
export async function unfence(source: pg.Client, database: string): Promise<void> {
  await source.query(`ALTER DATABASE ${source.escapeIdentifier(database)} RESET default_transaction_read_only`);
  await endBrokerSessions(source);
}

/** How long the fence waits for the ended sessions' backends to exit before the switch gives up (and rolls back). */
const SESSION_EXIT_WAIT_MS = 10_000;

/**
 * Ends every `queen:` session and waits until their backends are gone. pg_terminate_backend only signals: a
 * backend in the middle of a commit finishes it first, so a broker's write can land on the source a moment after
 * the call returns. The marker that proves the target caught up must come after every such commit, or a late
 * write would reach the target after brokers already write there (out of order within its partition).
 */
async function endBrokerSessions(source: pg.Client): Promise<void> {
  const { rows } = await source.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name LIKE 'queen:%'`,
  );
  const pids = rows.map((row) => row.pid);
  if (pids.length === 0) return;
  await source.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
  const deadline = Date.now() + SESSION_EXIT_WAIT_MS;
  for (;;) {
    const left = await source.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY ($1::int[])', [pids]);
    if (left.rows[0]!.n === 0) return;
    if (Date.now() > deadline) throw new Error(`${left.rows[0]!.n} broker session(s) on the source did not end within ${SESSION_EXIT_WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Writes a new marker token (through the control session, past the fence). */
export async function writeMarker(source: pg.Client, token: string): Promise<void> {
  await source.query(`INSERT INTO queen.database_move_marker (token) VALUES ($1) ON CONFLICT (singleton) DO UPDATE SET token = EXCLUDED.token`, [token]);
}

/** True when the target applied marker `token`. */
export async function markerArrived(target: pg.Client, token: string): Promise<boolean> {
  const { rows } = await target.query(`SELECT 1 FROM queen.database_move_marker WHERE token = $1`, [token]);
  return rows.length === 1;
}

/** Brings every sequence of the broker's schemas to the source's position (logical replication does not carry them). */
export async function copySequences(source: pg.Client, target: pg.Client): Promise<number> {
  const { rows } = await source.query<{ name: string; last: string | null }>(
    `SELECT format('%I.%I', schemaname, sequencename) AS name, last_value::text AS last FROM pg_sequences WHERE schemaname IN ('queen', 'queen_streams')`,
  );
  for (const row of rows) {
    if (row.last !== null) await target.query('SELECT setval($1::regclass, $2::bigint, true)', [row.name, row.last]);
  }
  return rows.length;
}

/** Drops the target's subscription (and with it the source's slot) and the source's publication; each if present. */
export async function unsubscribe(target: pg.Client | null, source: pg.Client | null): Promise<void> {
  if (target !== null) {
    const { rows } = await target.query(`SELECT 1 FROM pg_subscription WHERE subname = $1`, [NAME]);
    if (rows.length > 0) {
      await target.query(`ALTER SUBSCRIPTION ${NAME} DISABLE`);
      await target.query(`ALTER SUBSCRIPTION ${NAME} SET (slot_name = NONE)`);
      await target.query(`DROP SUBSCRIPTION ${NAME}`);
    }
  }
  if (source !== null) {
    await source.query(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active`, [NAME]);
    await source.query(`DROP PUBLICATION IF EXISTS ${NAME}`);
  }
}

/** Row counts of `tables` on `db`. */
export async function tableCounts(db: pg.Client, tables: string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const table of tables) {
    const { rows } = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`);
    counts.set(table, Number(rows[0]!.n));
  }
  return counts;
}

/** `tables` ordered so that a table comes after every table its foreign keys reference (the offline copy's order). */
export async function referencedFirst(db: Queryable, tables: string[]): Promise<string[]> {
  const { rows } = await db.query<{ child: string; parent: string }>(
    `SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint WHERE contype = 'f' AND conrelid <> confrelid`,
  );
  const ordered: string[] = [];
  const pending = new Set(tables);
  while (pending.size > 0) {
    const ready = [...pending].filter((table) => !rows.some((r) => r.child === table && pending.has(r.parent)));
    for (const table of ready.length > 0 ? ready : [...pending]) { // a cycle: the rest as it is
      ordered.push(table);
      pending.delete(table);
    }
  }
  return ordered;
}

/** Copies `table` from source to target through the broker (the offline path), `batch` rows at a time, as JSON records. */
export async function copyTable(source: pg.Client, target: pg.Client, table: string, batch = 2000): Promise<number> {
  let copied = 0;
  await source.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    await source.query(`DECLARE queen_move_copy NO SCROLL CURSOR FOR SELECT to_jsonb(t) AS r FROM ${table} t`);
    for (;;) {
      const { rows } = await source.query<{ r: unknown }>(`FETCH ${batch} FROM queen_move_copy`);
      if (rows.length === 0) break;
      await target.query(`INSERT INTO ${table} OVERRIDING SYSTEM VALUE SELECT * FROM jsonb_populate_recordset(NULL::${table}, $1)`, [JSON.stringify(rows.map((row) => row.r))]);
      copied += rows.length;
    }
  } finally {
    await source.query('COMMIT').catch(() => undefined);
  }
  return copied;
}
