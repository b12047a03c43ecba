/**
 * Moving the deployment to another PostgreSQL (docs/api.md "Migration", ADMIN): upstream's five routes and
 * body `{host, port, database, user, password, ssl}`, plus `mode` ("online", the default, or "offline").
 */
import type { MoveTarget } from '../../core/database-move.js';
import type { RouteContext } from '../context.js';
import type { Body } from '@queen/client/api';
import type { Checked, Route } from '../route.js';

/** A body whose fields the edge checked (MigrationTarget's marks): `port` a number 1-65535 when present (a digit string read as one). */
type TargetBody = Checked<Body<'startMigration'>, 'host' | 'database' | 'user' | 'password' | 'ssl' | 'mode'> & { port?: number | null };

/** The target of a checked body: the port defaults to 5432, the password to none. */
export function targetOf(body: Record<string, unknown>): MoveTarget {
  const { host, port, database, user, password, ssl } = body as TargetBody;
  return { host, port: port ?? 5432, database, user, password: password ?? '', ssl: ssl === true };
}

/** The migration routes. */
export function migrationRoutes(core: RouteContext): Route[] {
  const { migration } = core;
  return [
    {
      method: 'POST',
      path: '/api/v1/migration/test-connection',
      access: 'ADMIN',
      body: 'required',
      handle: async ({ body }) => ({ status: 200, body: await migration.testConnection(targetOf(body)) }),
    },
    {
      method: 'POST',
      path: '/api/v1/migration/start',
      access: 'ADMIN',
      body: 'required',
      async handle({ body }) {
        const target = targetOf(body);
        return { status: 202, body: await migration.start(target, (body as TargetBody).mode ?? 'online') };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/migration/status',
      access: 'ADMIN',
      handle: async () => ({ status: 200, body: await migration.status() }),
    },
    {
      method: 'POST',
      path: '/api/v1/migration/validate',
      access: 'ADMIN',
      handle: async () => ({ status: 200, body: await migration.validate() }),
    },
    {
      method: 'POST',
      path: '/api/v1/migration/reset',
      access: 'ADMIN',
      handle: async () => ({ status: 200, body: await migration.reset() }),
    },
  ];
}
