/** `ping` and `version` (docs/cli.md): the broker's health, its version and the context. */
import type { Command } from 'commander';
import { QueenError } from '@queen/client';
import { action, sub } from '../../command.js';
import { versionLine } from '../../version.js';
import { serverError, toCliError } from '../../errors.js';
import type { Runtime } from '../../runtime.js';
import { parseDuration } from '../../time.js';
import * as broker from '@queen/client/api';

/** GET the broker's health within `timeoutMillis`; a 503 still answers with its health body. */
async function health(rt: Runtime, timeoutMillis: number): Promise<{ body: Record<string, unknown>; latencyMs: number }> {
  const api = await rt.api();
  const started = performance.now();
  try {
    const body = await broker.health(api.queen, { timeoutMillis, signal: rt.signal });
    return { body: { ...body }, latencyMs: performance.now() - started };
  } catch (error) {
    // A 503 /health still carries the health body (docs/api.md §4.1).
    if (error instanceof QueenError && error.status === 503 && error.body && typeof error.body === 'object') return { body: error.body as Record<string, unknown>, latencyMs: performance.now() - started };
    throw toCliError(error, { method: broker.routes.health.method, path: broker.routes.health.path });
  }
}

/** Registers `ping` and `version`. */
export function registerHealth(program: Command): void {
  action(sub(program, 'ping', 'Check that the broker and its database are healthy (GET /health)', 'queenctl ping --timeout 2s')
    .option('--timeout <duration>', 'how long to wait', '5s'), async (rt, opts) => {
    const { body, latencyMs } = await health(rt, parseDuration(opts.timeout, '--timeout'));
    const row = { status: body.status, database: body.database, version: body.version, latencyMs: Math.round(latencyMs), server: (await rt.connection()).server };
    await rt.out.print({ ...body, latencyMs: row.latencyMs }, {
      rows: () => [row],
      columns: [
        { header: 'STATUS', value: (r) => r.status },
        { header: 'DATABASE', value: (r) => r.database },
        { header: 'VERSION', value: (r) => r.version },
        { header: 'LATENCY', value: (r) => `${r.latencyMs}ms` },
        { header: 'SERVER', value: (r) => r.server, wide: true },
      ],
    });
    if (body.status !== 'healthy' || (body.database !== undefined && body.database !== 'connected')) throw serverError(`unhealthy: status=${String(body.status)} database=${String(body.database)}`);
  });

  action(sub(program, 'version', 'Print the CLI version, then the server, its health and the context', ['queenctl version', 'queenctl version --short'])
    .option('--short', 'only the CLI version line'), async (rt, opts) => {
    if (opts.short) return rt.out.write(`${versionLine()}\n`);
    const conn = await rt.connection();
    const { body } = await health(rt, 5000);
    const info = { client: versionLine(), server: conn.server, serverVersion: body.version ?? null, status: body.status ?? null, database: body.database ?? null, context: conn.context ?? null };
    if (rt.out.explicit) return rt.out.print(info);
    rt.out.write(`${info.client}\nserver:   ${info.server} (${String(info.serverVersion ?? '?')})\nstatus:   ${String(info.status)}\ndatabase: ${String(info.database)}\ncontext:  ${info.context ?? '-'}\n`);
  });
}
