/** `lag` (docs/cli.md) and the group views `cg list`/`cg lag` share with it. */
import type { Command } from 'commander';
import { action, int, sub } from '../../command.js';
import { arrayAt, type View } from '../../output.js';
import type { Runtime } from '../../runtime.js';
import * as broker from '@queen/client/api';

/** Columns of `lag` and `cg list` (operation listConsumerGroups). */
export const GROUP_VIEW: View<broker.ConsumerGroupRow[], broker.ConsumerGroupRow> = {
  rows: (b) => arrayAt(b),
  columns: [
    { header: 'CG', value: (r) => r.name },
    { header: 'QUEUE', value: (r) => r.queueName },
    { header: 'MESSAGES', value: (r) => r.totalLag, kind: 'count' },
    { header: 'LAG', value: (r) => r.maxTimeLag, kind: 'seconds' },
    { header: 'STATE', value: (r) => r.state },
    { header: 'PARTITIONS', value: (r) => r.members, wide: true },
    { header: 'SUBSCRIBED', value: (r) => r.subscriptionTimestamp ?? r.subscriptionMode, wide: true },
  ],
};

/** Columns of `lag --min-seconds` (operation listLaggingConsumerGroups). */
export const LAGGING_VIEW: View<broker.LaggingRow[], broker.LaggingRow> = {
  rows: (b) => arrayAt(b),
  columns: [
    { header: 'CG', value: (r) => r.consumer_group },
    { header: 'QUEUE', value: (r) => r.queue_name },
    { header: 'PARTITION', value: (r) => r.partition_name },
    { header: 'MESSAGES', value: (r) => r.offset_lag, kind: 'count' },
    { header: 'LAG', value: (r) => r.time_lag_seconds, kind: 'seconds' },
    { header: 'OLDEST', value: (r) => r.oldest_unconsumed_at, kind: 'time', wide: true },
  ],
};

/** `lag` / `cg lag` / `cg list`: every group, or the lagging partitions with `--min-seconds` > 0. */
export async function printLag(rt: Runtime, minSeconds: number): Promise<void> {
  const api = await rt.api();
  if (minSeconds > 0) await rt.out.print(await broker.listLaggingConsumerGroups(api.http(), { minLagSeconds: minSeconds }), LAGGING_VIEW);
  else await rt.out.print(await broker.listConsumerGroups(api.http()), GROUP_VIEW);
}


/** Registers `lag`. */
export function registerLag(program: Command): void {
  action(sub(program, 'lag', 'Consumer-group lag per queue (or the partitions lagging at least --min-seconds)', ['queenctl lag', 'queenctl lag --min-seconds 300'])
    .option('--min-seconds <n>', 'only partitions at least this far behind', int, 0), async (rt, opts) => printLag(rt, opts.minSeconds));
}
