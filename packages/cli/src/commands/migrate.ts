/**
 * Moving the deployment to another PostgreSQL (docs/cli.md, docs/operations.md "Moving to another
 * PostgreSQL"): `migrate --to <url> [--offline] [--wait]`, `migrate status`, `migrate validate`, `migrate reset`.
 * `--wait` prints one progress line per change (phase, tables copied, lag) until the move completes or fails.
 */
import * as broker from '@queen/client/api';
import type { MigrationStatus, MigrationTarget } from '@queen/client/api';
import type { Command } from 'commander';
import { action, sub } from '../command.js';
import { CliError, EXIT } from '../errors.js';

/** The target of a `postgres://user:password@host:port/database[?sslmode=require]` URL. */
export function targetOfUrl(url: string): MigrationTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`--to: not a URL: ${url} (postgres://user:password@host:5432/database)`, EXIT.user);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw new CliError('--to: the URL must start with postgres://', EXIT.user);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (parsed.hostname === '' || database === '' || parsed.username === '') throw new CliError('--to: the URL needs a user, a host and a database (postgres://user:password@host:5432/database)', EXIT.user);
  const sslmode = parsed.searchParams.get('sslmode');
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port === '' ? 5432 : Number(parsed.port),
    database,
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    ssl: sslmode !== null && sslmode !== 'disable' && sslmode !== 'prefer' && sslmode !== 'allow',
  };
}

/** One progress line: status, tables copied, lag, pause. */
export function progressLine(status: MigrationStatus): string {
  const p = status.progress ?? {};
  const parts = [`migration ${status.status}`];
  if (typeof p.tables === 'number') parts.push(`tables ${String(p.copied ?? 0)}/${p.tables}`);
  if (typeof p.lagBytes === 'number') parts.push(`lag ${p.lagBytes} B`);
  if (typeof p.pauseMs === 'number') parts.push(`pause ${p.pauseMs} ms`);
  if (status.error) parts.push(`error: ${status.error}`);
  return parts.join(', ');
}

/** Registers `migrate`. */
export function registerMigrate(program: Command): void {
  const migrate = sub(program, 'migrate', 'Move the deployment to another PostgreSQL (online by logical replication, or --offline)',
    ['queenctl migrate --to postgres://queen:secret@pg-new:5432/queen --wait', 'queenctl migrate status'])
    .option('--to <url>', 'the target database, postgres://user:password@host:port/database')
    .option('--offline', 'fence the source and copy (for a source without wal_level=logical)')
    .option('--wait', 'print progress until the move completes or fails');
  action(migrate, async (rt, opts) => {
    if (typeof opts.to !== 'string') throw new CliError('migrate: --to <url> is required (or use migrate status|validate|reset)', EXIT.user);
    const target = targetOfUrl(opts.to);
    const api = await rt.api();
    let status = await broker.startMigration(api.http(), { ...target, mode: opts.offline === true ? 'offline' : 'online' });
    if (opts.wait !== true) return rt.out.result(progressLine(status), status);
    let last = '';
    for (;;) {
      const line = progressLine(status);
      if (line !== last) rt.out.done(line);
      last = line;
      if (status.status === 'complete') return;
      if (status.status === 'error' || status.status === 'idle') throw new CliError(`migration failed: ${status.error ?? 'cancelled'}`, EXIT.server);
      await new Promise((resolve) => setTimeout(resolve, 500));
      status = await broker.getMigrationStatus(api.http()).catch(() => status); // a broker switching answers 503 for a moment
    }
  });
  action(sub(migrate, 'status', 'The migration status (YAML)', 'queenctl migrate status'), async (rt) => {
    const api = await rt.api();
    await rt.out.print(await broker.getMigrationStatus(api.http()), { describe: true });
  });
  action(sub(migrate, 'validate', 'Row counts per table on source and target', 'queenctl migrate validate'), async (rt) => {
    const api = await rt.api();
    await rt.out.print(await broker.validateMigration(api.http()), {
      rows: (b) => b.tables,
      columns: [
        { header: 'TABLE', value: (r) => r.table },
        { header: 'SOURCE', value: (r) => r.source, kind: 'count' },
        { header: 'TARGET', value: (r) => r.target, kind: 'count' },
        { header: 'MATCH', value: (r) => (r.match ? 'yes' : 'no') },
      ],
    });
  });
  action(sub(migrate, 'reset', 'Cancel a migration before its switch, or clear a finished one', 'queenctl migrate reset'), async (rt) => {
    const api = await rt.api();
    await rt.out.result('migration reset', await broker.resetMigration(api.http()));
  });
}
