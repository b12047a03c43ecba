/** `metrics` and `lease extend` (docs/cli.md). */
import type { Command } from 'commander';
import { action, int, sub } from '../../command.js';
import { serverError } from '../../errors.js';
import * as broker from '@queen/client/api';

/** Registers `metrics` and `lease extend`. */
export function registerMetrics(program: Command): void {
  action(sub(program, 'metrics', 'Broker metrics: the JSON summary, or Prometheus text with --prometheus', ['queenctl metrics', 'queenctl metrics --prometheus | grep queen_pop'])
    .option('--prometheus', 'Prometheus exposition text, verbatim'), async (rt, opts) => {
    const api = await rt.api();
    if (opts.prometheus) {
      rt.out.write(await broker.prometheusMetrics(api.http()));
      return;
    }
    await rt.out.print(await broker.metrics(api.http()), { describe: true });
  });

  const lease = sub(program, 'lease', 'Lease commands', 'queenctl lease extend 0198f2d3-1b2c-7a00-8c11-5e6f708192a3');
  action(sub(lease, 'extend <leaseId>', 'Extend a lease (operation extendLease)', 'queenctl lease extend 0198f2d3-1b2c-7a00-8c11-5e6f708192a3 --seconds 120')
    .option('--seconds <n>', 'new lease length from now (broker default 60)', int), async (rt, opts, leaseId) => {
    const api = await rt.api();
    const body = await broker.extendLease(api.http(), leaseId!, opts.seconds !== undefined ? { seconds: opts.seconds } : {});
    const result = body[0];
    if (!result?.success) throw serverError(`lease extend failed: ${result?.error ?? 'no result'}`);
    await rt.out.result(`renewed ${leaseId} -> ${result.newExpiresAt}`, body);
  });
}
