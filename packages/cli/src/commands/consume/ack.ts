/** `ack` (docs/cli.md): one message, or (`--batch`) every NDJSON line of pop/tail output. */
import type { Command } from 'commander';
import type { AckStatus } from '@queen/client';
import * as broker from '@queen/client/api';
import type { Api } from '../../api.js';
import { action, sub } from '../../command.js';
import { CliError, EXIT, noop, serverError, userError } from '../../errors.js';

/** Acks messages `completed` (or `failed`) for a group in one request; resolves with the refused ones. */
async function ackMessages(api: Api, messages: Array<{ transactionId: string; partitionId: string; leaseId?: string; consumerGroup?: string }>, group: string | undefined, status: AckStatus = 'completed', error?: string): Promise<Array<{ transactionId: string; error: string }>> {
  const acknowledgments = messages.map((m) => ({ transactionId: m.transactionId, partitionId: m.partitionId, status, ...(m.leaseId ? { leaseId: m.leaseId } : {}), ...(m.consumerGroup ? { consumerGroup: m.consumerGroup } : {}), ...(error ? { error } : {}) }));
  const body = await broker.ackBatch(api.http({ signal: null, allowFailure: true }), { acknowledgments, ...(group ? { consumerGroup: group } : {}) });
  return body.filter((r) => !r.success).map((r) => ({ transactionId: r.transactionId, error: r.error ?? 'refused' }));
}

/** Registers `ack`. */
export function registerAck(program: Command): void {
  action(sub(program, 'ack [transactionId]', 'Ack one message, or (--batch) every NDJSON line of pop/tail output', ['queenctl ack 0198f2e0-51c4-7e22-a1b0-3c4d5e6f7081 --partition-id 0198f2c0-0000-7000-8000-00000000b002 --cg billing', 'queenctl tail orders --consume --cg billing -n 10 | queenctl ack --batch - --cg billing'])
    .option('--partition-id <id>', 'partition id of the message (required for one message)')
    .option('--lease-id <id>', 'lease id from the pop')
    .option('--cg <group>', 'consumer group (default: queue mode, or each line\'s consumerGroup)')
    .option('--failed', 'ack as failed (retry, then DLQ)')
    .option('--error <text>', 'error text stored with a failed ack')
    .option('--batch <file>', 'NDJSON file of messages (- = stdin)'), async (rt, opts, transactionId) => {
    const api = await rt.api();
    const status = opts.failed ? 'failed' : 'completed';
    if (opts.batch !== undefined) {
      if (transactionId) throw userError('give either a transactionId or --batch, not both');
      const text = await rt.readInput(opts.batch);
      const items = text.split('\n').map((l, i) => [l.trim(), i + 1] as const).filter(([l]) => l !== '').map(([l, n]) => {
        let v: Record<string, unknown>;
        try {
          v = JSON.parse(l) as Record<string, unknown>;
        } catch {
          throw userError(`--batch line ${n}: not valid JSON`);
        }
        if (typeof v.transactionId !== 'string' || typeof v.partitionId !== 'string') throw userError(`--batch line ${n}: needs transactionId and partitionId`);
        return { transactionId: v.transactionId, partitionId: v.partitionId, ...(typeof v.leaseId === 'string' ? { leaseId: v.leaseId } : {}), ...(typeof v.consumerGroup === 'string' ? { consumerGroup: v.consumerGroup } : {}) };
      });
      if (items.length === 0) throw noop();
      const refused = await ackMessages(api, items, opts.cg, status, opts.error);
      for (const r of refused) process.stderr.write(`queenctl: ack of ${r.transactionId} refused: ${r.error}\n`);
      rt.out.done(`ok=${items.length - refused.length} failed=${refused.length}`);
      if (refused.length > 0) throw new CliError('', EXIT.server, true);
      return;
    }
    if (!transactionId) throw noop();
    if (!opts.partitionId) throw userError('--partition-id is required to ack one message');
    const body = await broker.ackMessage(api.http({ allowFailure: true }), { transactionId, partitionId: opts.partitionId, status, ...(opts.leaseId ? { leaseId: opts.leaseId } : {}), ...(opts.error ? { error: opts.error } : {}), ...(opts.cg ? { consumerGroup: opts.cg } : {}) });
    const result = Array.isArray(body) ? body[0] : undefined;
    if (!result?.success) throw serverError(`ack failed: ${result?.error ?? 'no result'}`);
    await rt.out.result('ack ok', body);
  });
}
