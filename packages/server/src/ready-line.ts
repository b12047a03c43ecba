/**
 * The one line a person reads when the broker is ready (issue 13 item 11):
 * `Queen 1.0.0 listening on http://localhost:6632 (embedded PostgreSQL 17 at ./.queen/pgdata, port 6633)`.
 * A wildcard listen address is shown as localhost (what a browser or curl on the same host would use); an
 * external database is named by host, port and database, never with its credentials.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import { describeHosts } from './database-address.js';
import { rememberedPort } from './store/embedded.js';

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/** Where the database is, in words. */
function databaseText(config: Config, cwd: string): string {
  const db = config.database;
  if (db.kind === 'embedded') {
    const version = fs.existsSync(path.join(db.dataDir, 'PG_VERSION')) ? ` ${fs.readFileSync(path.join(db.dataDir, 'PG_VERSION'), 'utf8').trim()}` : '';
    const relative = path.relative(cwd, db.dataDir);
    const shown = relative === '' ? '.' : relative.startsWith('..') || path.isAbsolute(relative) ? db.dataDir : `./${relative}`;
    // Chosen automatically (6633 when free) unless configured: the operator learns it here, not from the logs.
    const port = db.port ?? rememberedPort(db.dataDir);
    return `embedded PostgreSQL${version} at ${shown}${port === null ? '' : `, port ${port}`}`;
  }
  const hosts = describeHosts(db.hosts);
  return `PostgreSQL at ${db.hosts.length > 1 ? `${hosts} (${db.targetSessionAttrs})` : hosts}/${db.database}`;
}

/** The ready line for a broker listening on `port`. */
export function readyLine(config: Config, version: string, port: number, cwd = process.cwd()): string {
  const host = WILDCARDS.has(config.host) ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `Queen ${version} listening on http://${host}:${port} (${databaseText(config, cwd)})`;
}
