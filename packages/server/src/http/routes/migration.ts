/**
 * Moving the deployment to another PostgreSQL (docs/api.md "Migration", ADMIN): upstream's five routes and
 * body `{host, port, database, user, password, ssl}`, plus `mode` ("online", the default, or "offline").
 */
import { invalid } from '../../errors.js';
import type { MoveTarget } from '../../core/database-move.js';
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';

/** The target of a body: host, database and user non-empty strings, port 1-65535 (default 5432), ssl a boolean. */
export function targetOf(body: Record<string, unknown>): MoveTarget {
  const text = (name: string, required: boolean): string => {
    const value = body[name];
    if (value === undefined && !required) return '';
    if (typeof value !== 'string' || (required && value.trim() === '')) throw invalid(`${name} (string) is required`);
    return value;
  };
  const port = body.port ?? 5432;
  const number = typeof port === 'string' && /^\d+$/.test(port) ? Number(port) : port;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 1 || number > 65535) throw invalid('port must be an integer between 1 and 65535');
  if (body.ssl !== undefined && typeof body.ssl !== 'boolean') throw invalid('ssl must be a boolean');
  return { host: text('host', true), port: number, database: text('database', true), user: text('user', true), password: text('password', false), ssl: body.ssl === true };
}

function modeOf(body: Record<string, unknown>): 'online' | 'offline' {
  if (body.mode === undefined || body.mode === 'online') return 'online';
  if (body.mode === 'offline') return 'offline';
  throw invalid('mode must be "online" or "offline"');
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
        return { status: 202, body: await migration.start(target, modeOf(body)) };
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
