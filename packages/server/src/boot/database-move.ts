/**
 * The database move's wiring (core/database-move.ts): the service over this broker's pool, its watch, and the
 * look at start-up. A broker that starts on a source the deployment has left (it restarted mid-move, or still
 * carries the old DATABASE_URL) follows to the target before its migrations, which a fenced source refuses.
 */
import type { Config } from '../config.js';
import { MoveService } from '../core/database-move.js';
import { moveKey } from '../core/move-seal.js';
import type { Logger } from '../logger.js';
import { moveDelete, moveRead, type MoveTarget } from '../store/database-move.js';
import type { Database } from './database.js';
import type { Defer } from './sequence.js';

/** Builds the move service of this broker (its watch starts with `startMoveWatch`). */
export function buildMove({ config, log, database }: { config: Config; log: Logger; database: Database }): MoveService {
  const { hosts, user, password, database: name, tls } = database.configured;
  const source: MoveTarget = { host: hosts[0]!.host, port: hosts[0]!.port, database: name, user, password, ssl: tls !== false };
  return new MoveService({
    source,
    key: moveKey(config.encryptionKey ?? `${user}\u0000${password}\u0000${name}`),
    serverId: config.serverId,
    log: log.child({ component: 'database-move' }),
    read: () => moveRead(database.pool),
    clear: () => moveDelete(database.pool),
    follow: (target) => database.moveTo({ hosts: [{ host: target.host, port: target.port }], user: target.user, password: target.password, database: target.database, tls: target.ssl ? { rejectUnauthorized: false } : false }),
    switchTimeoutMs: config.migrationSwitchTimeoutMs,
  });
}

/** Follows a move the configured database records as finished (before the migrations), then starts the watch. */
export async function startMoveWatch(move: MoveService, defer: Defer): Promise<void> {
  await move.watch();
  move.startWatch();
  defer('database move watch', () => move.stop());
}
