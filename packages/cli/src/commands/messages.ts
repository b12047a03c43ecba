/**
 * Messages, traces and the DLQ (docs/cli.md): listing, one message, delete, requeue from the DLQ, move to the
 * DLQ by hand, traces, and `dlq drain` / bulk `dlq requeue`. Bulk commands page from offset 0 again after every
 * page, because each handled row leaves the list (upstream advanced the offset and skipped rows), and show a
 * progress line on a TTY stderr.
 */
import type { Command } from 'commander';
import * as broker from '@queen/client/api';
import type { Api } from '../api.js';
import { action, int, sub } from '../command.js';
import { CliError, EXIT, noop, serverError, userError } from '../errors.js';
import { arrayAt, type ElementOf, type View } from '../output.js';
import type { Runtime } from '../runtime.js';
import { timeParam } from '../time.js';
import { requireYes } from './queues.js';

const MESSAGE_VIEW: View<broker.MessageList, broker.MessageListRow> = {
  rows: (b) => arrayAt(b, 'messages'),
  columns: [
    { header: 'TX', value: (r) => r.transactionId },
    { header: 'QUEUE', value: (r) => r.queue },
    { header: 'PARTITION', value: (r) => r.partition },
    { header: 'STATUS', value: (r) => r.status },
    { header: 'GROUPS', value: (r) => (r.busStatus && r.busStatus.totalGroups > 0 ? `${r.busStatus.consumedBy}/${r.busStatus.totalGroups}` : null) },
    { header: 'CREATED', value: (r) => r.createdAt, kind: 'time' },
    { header: 'PARTITIONID', value: (r) => r.partitionId, wide: true },
    { header: 'PRODUCER', value: (r) => r.producerSub, wide: true },
  ],
};

const TRACE_VIEW: View<{ traces: broker.TraceEventRow[] }, broker.TraceEventRow> = {
  rows: (b) => arrayAt(b, 'traces'),
  columns: [
    { header: 'AT', value: (r) => r.created_at, kind: 'time' },
    { header: 'EVENT', value: (r) => r.event_type },
    { header: 'TRACE', value: (r) => (Array.isArray(r.trace_names) ? r.trace_names.join(',') : r.trace_names) },
    { header: 'DATA', value: (r) => JSON.stringify(r.data) },
  ],
};

const TRACE_BY_NAME_VIEW: View<{ traces: broker.NamedTraceRow[] }, broker.NamedTraceRow> = {
  rows: (b) => arrayAt(b, 'traces'),
  columns: [
    { header: 'AT', value: (r) => r.created_at, kind: 'time' },
    { header: 'EVENT', value: (r) => r.event_type },
    { header: 'TX', value: (r) => r.transaction_id },
    { header: 'PARTITION', value: (r) => r.partition_name },
    { header: 'DATA', value: (r) => JSON.stringify(r.data) },
  ],
};

const TRACE_NAMES_VIEW: View<{ trace_names: broker.TraceNameRow[] }, broker.TraceNameRow> = {
  rows: (b) => arrayAt(b, 'trace_names'),
  columns: [
    { header: 'NAME', value: (r) => r.trace_name },
    { header: 'EVENTS', value: (r) => r.trace_count, kind: 'count' },
    { header: 'MESSAGES', value: (r) => r.message_count, kind: 'count' },
    { header: 'LAST', value: (r) => r.last_seen, kind: 'time' },
  ],
};

/** A page of `dlq list` (operation listDlq). */
type DlqPage = Awaited<ReturnType<typeof broker.listDlq>>;

const DLQ_VIEW: View<DlqPage, ElementOf<DlqPage['messages']>> = {
  rows: (b) => arrayAt(b, 'messages'),
  columns: [
    { header: 'TX', value: (r) => r.transactionId },
    { header: 'QUEUE', value: (r) => r.queue },
    { header: 'PARTITION', value: (r) => r.partition },
    { header: 'CG', value: (r) => r.consumerGroup },
    { header: 'RETRIES', value: (r) => r.retryCount, kind: 'count' },
    { header: 'ERROR', value: (r) => r.errorMessage },
    { header: 'FAILED-AT', value: (r) => r.failedAt, kind: 'time', wide: true },
    { header: 'PARTITIONID', value: (r) => r.partitionId, wide: true },
  ],
};

/** The DLQ filters shared by `dlq list`, `dlq drain` and bulk `dlq requeue`. */
function dlqFilters(cmd: Command): Command {
  return cmd
    .option('--queue <name>', 'only this queue')
    .option('--cg <group>', 'only this consumer group')
    .option('--partition <name>', 'only this partition')
    .option('--from <time>', 'failed at or after (15m ago, RFC 3339 ...)')
    .option('--to <time>', 'failed at or before');
}

function dlqParams(opts: Record<string, string | undefined>): broker.DlqQuery {
  return { queue: opts.queue, consumerGroup: opts.cg, partition: opts.partition, from: timeParam(opts.from, '--from'), to: timeParam(opts.to, '--to') };
}

/** A progress line on stderr, redrawn in place on a TTY, silent elsewhere or with -q. */
function progress(rt: Runtime, verb: string): { update(done: number, errors: number, total: number): void; end(): void } {
  const live = Boolean(process.stderr.isTTY) && !rt.out.quiet;
  let drawn = false;
  return {
    update(done, errors, total) {
      if (!live) return;
      process.stderr.write(`\r${verb} ${done}/${Math.max(total, done)}${errors ? ` (${errors} errors)` : ''}\u001b[K`);
      drawn = true;
    },
    end() {
      if (drawn) process.stderr.write('\r\u001b[K');
    },
  };
}

/** Handles every DLQ row matching the filters with `handle`, re-reading from offset 0 after each page. */
async function eachDlqRow(rt: Runtime, api: Api, params: broker.DlqQuery, pageSize: number, verb: string, handle: (row: { partitionId: string; transactionId: string }) => Promise<void>): Promise<{ processed: number; errors: number }> {
  const bar = progress(rt, verb);
  let processed = 0;
  let errors = 0;
  const failedKeys = new Set<string>();
  try {
    for (;;) {
      if (rt.signal.aborted) break;
      // Always from offset 0: handled rows leave the list. Rows that failed stay, so the page grows by them.
      if (failedKeys.size + pageSize > 1000) break;
      const page = await broker.listDlq(api.http(), { ...params, limit: pageSize + failedKeys.size, offset: 0 });
      const rows = arrayAt(page, 'messages') as Array<{ partitionId: string; transactionId: string }>;
      const fresh = rows.filter((r) => !failedKeys.has(`${r.partitionId}/${r.transactionId}`));
      if (fresh.length === 0) break;
      const seen = new Set<string>();
      for (const row of fresh) {
        const key = `${row.partitionId}/${row.transactionId}`;
        if (seen.has(key)) continue; // one message failed by two groups: handled once
        seen.add(key);
        try {
          await handle(row);
          processed++;
        } catch (error) {
          if (rt.signal.aborted) break;
          errors++;
          failedKeys.add(key);
          process.stderr.write(`${process.stderr.isTTY ? '\r\u001b[K' : ''}queenctl: ${verb} ${key}: ${(error as Error).message}\n`);
        }
        bar.update(processed, errors, Number(page.total ?? 0) + processed);
      }
    }
  } finally {
    bar.end();
  }
  return { processed, errors };
}

/** Registers `messages`, `traces` and `dlq`. */
export function registerMessages(program: Command): void {
  const messages = sub(program, 'messages', 'Messages: list, get, delete, traces, retry, dlq', 'queenctl messages list --queue orders', ['msg', 'msgs']);
  action(sub(messages, 'list', 'List messages with their status (no payloads; default the last hour)', ['queenctl messages list --queue orders --status pending', 'queenctl msg ls --queue orders --from "1d ago" -o wide'], ['ls'])
    .option('--queue <name>', 'only this queue')
    .option('--partition <name>', 'only this partition')
    .option('--status <status>', 'pending, processing, completed or dead_letter')
    .option('--cg <group>', 'accepted and ignored (kept so existing scripts run unchanged)')
    .option('--from <time>', 'created at or after (default 1h ago)')
    .option('--to <time>', 'created at or before (default now)')
    .option('--limit <n>', 'at most n (max 1000)', int, 100)
    .option('--offset <n>', 'skip n', int, 0), async (rt, opts) => {
    const api = await rt.api();
    await rt.out.print(await broker.listMessages(api.http(), { queue: opts.queue, partition: opts.partition, status: opts.status, limit: opts.limit, offset: opts.offset || undefined, from: timeParam(opts.from, '--from'), to: timeParam(opts.to, '--to') }), MESSAGE_VIEW);
  });
  const getMessage = async (rt: Runtime, pid: string, tx: string) => {
    const api = await rt.api();
    await rt.out.print(await broker.getMessage(api.http(), pid, tx), { describe: true });
  };
  action(sub(messages, 'get <partitionId> <transactionId>', 'One message with its payload and per-group state (YAML)', 'queenctl messages get 0198f2c0-0000-7000-8000-00000000b002 invoice-5531', ['describe', 'show']), async (rt, _o, pid, tx) => getMessage(rt, pid!, tx!));
  action(sub(messages, 'delete <partitionId> <transactionId>', 'Delete one message (its DLQ entries and traces too)', 'queenctl messages delete 0198f2c0-0000-7000-8000-00000000b002 invoice-5531 --yes', ['rm'])
    .option('--yes', 'confirm'), async (rt, opts, pid, tx) => {
    requireYes(opts, `delete message ${tx}`);
    const api = await rt.api();
    const body = await broker.deleteMessage(api.http(), pid!, tx!);
    if (body?.message === 'Message not found') throw userError(`message ${tx} not found in partition ${pid}`);
    await rt.out.result('deleted', body);
  });
  const traces = async (rt: Runtime, pid: string, tx: string) => {
    const api = await rt.api();
    await rt.out.print(await broker.getTraces(api.http(), pid, tx), TRACE_VIEW);
  };
  action(sub(messages, 'traces <partitionId> <transactionId>', 'Processing events recorded for a message', 'queenctl messages traces 0198f2c0-0000-7000-8000-00000000b002 invoice-5531'), async (rt, _o, pid, tx) => traces(rt, pid!, tx!));
  const retry = async (rt: Runtime, pid: string, tx: string) => {
    const api = await rt.api();
    const body = await broker.retryMessage(api.http(), pid, tx);
    await rt.out.result(`requeued ${tx} as ${body.success ? body.newTransactionId : ''}`, body);
  };
  action(sub(messages, 'retry <partitionId> <transactionId>', 'Requeue a dead-lettered message (a new message with the same data)', 'queenctl messages retry 0198f2c0-0000-7000-8000-00000000b002 invoice-5531'), async (rt, _o, pid, tx) => retry(rt, pid!, tx!));
  action(sub(messages, 'dlq <partitionId> <transactionId>', "Move a group's head message to the DLQ by hand", 'queenctl messages dlq 0198f2c0-0000-7000-8000-00000000b002 invoice-5531 --cg billing --error "bad payload"')
    .option('--cg <group>', 'consumer group (default: queue mode)')
    .option('--error <text>', 'error text of the DLQ entry'), async (rt, opts, pid, tx) => {
    const api = await rt.api();
    const body = await broker.moveMessageToDlq(api.http(), pid!, tx!, { ...(opts.cg ? { consumerGroup: opts.cg } : {}), ...(opts.error ? { error: opts.error } : {}) });
    await rt.out.result(`moved ${tx} to the DLQ${opts.cg ? ` of ${opts.cg}` : ''}`, body);
  });

  const tr = sub(program, 'traces', 'Traces: names, by-name, by-message', 'queenctl traces names');
  action(sub(tr, 'names', 'Trace names with their counts', 'queenctl traces names --limit 20', ['list', 'ls'])
    .option('--limit <n>', 'at most n', int, 100)
    .option('--offset <n>', 'skip n', int, 0), async (rt, opts) => {
    const api = await rt.api();
    await rt.out.print(await broker.listTraceNames(api.http(), { limit: opts.limit, offset: opts.offset || undefined }), TRACE_NAMES_VIEW);
  });
  action(sub(tr, 'by-name <name>', 'Events recorded under a trace name', 'queenctl traces by-name checkout')
    .option('--limit <n>', 'at most n', int, 100)
    .option('--offset <n>', 'skip n', int, 0), async (rt, opts, name) => {
    const api = await rt.api();
    await rt.out.print(await broker.listTracesByName(api.http(), name!, { limit: opts.limit, offset: opts.offset || undefined }), TRACE_BY_NAME_VIEW);
  });
  action(sub(tr, 'by-message <partitionId> <transactionId>', 'Events recorded for a message', 'queenctl traces by-message 0198f2c0-0000-7000-8000-00000000b002 invoice-5531'), async (rt, _o, pid, tx) => traces(rt, pid!, tx!));

  const dlq = sub(program, 'dlq', 'Dead-letter queue: list, describe, requeue, drain', 'queenctl dlq list --queue orders');
  action(dlqFilters(sub(dlq, 'list', 'Dead-lettered messages, newest failure first', ['queenctl dlq list', 'queenctl dlq ls --queue orders --from "1d ago" -o json'], ['ls']))
    .option('--limit <n>', 'page size (0 = server default)', int, 0)
    .option('--offset <n>', 'skip n', int, 0), async (rt, opts) => {
    const api = await rt.api();
    const body = await broker.listDlq(api.http(), { ...dlqParams(opts), limit: opts.limit || undefined, offset: opts.offset || undefined });
    await rt.out.print(body, DLQ_VIEW);
    if ((rt.out.format.kind === 'table' || rt.out.format.kind === 'wide') && typeof body.total === 'number') rt.out.done(`total ${body.total}`);
  });
  action(sub(dlq, 'describe <partitionId> <transactionId>', 'One dead-lettered message with its payload (YAML)', 'queenctl dlq describe 0198f2c0-0000-7000-8000-00000000b002 invoice-5531', ['get']), async (rt, _o, pid, tx) => getMessage(rt, pid!, tx!));
  action(dlqFilters(sub(dlq, 'requeue [partitionId] [transactionId]', 'Requeue one dead-lettered message, or (with --yes) every one matching the filters', ['queenctl dlq requeue 0198f2c0-0000-7000-8000-00000000b002 invoice-5531', 'queenctl dlq requeue --queue orders --yes']))
    .option('--limit <n>', 'page size', int, 200)
    .option('--yes', 'confirm a bulk requeue'), async (rt, opts, pid, tx) => {
    if (pid && tx) return retry(rt, pid, tx);
    if (pid) throw userError('give both a partitionId and a transactionId, or filters with --yes');
    requireYes(opts, 'requeue every matching DLQ message');
    const api = await rt.api();
    const { processed, errors } = await eachDlqRow(rt, api, dlqParams(opts), opts.limit || 200, 'requeue', async (row) => void (await broker.retryMessage(api.http({ signal: null }), row.partitionId, row.transactionId)));
    if (processed === 0 && errors === 0) throw noop();
    rt.out.done(`processed=${processed} errors=${errors}`);
    if (errors > 0) throw new CliError('', EXIT.server, true);
  });
  action(dlqFilters(sub(dlq, 'drain', 'Delete every dead-lettered message matching the filters', ['queenctl dlq drain --queue orders --dry-run', 'queenctl dlq drain --queue orders --yes']))
    .option('--limit <n>', 'page size', int, 200)
    .option('--dry-run', 'count, delete nothing')
    .option('--yes', 'confirm'), async (rt, opts) => {
    if (!opts.dryRun && !opts.yes) throw userError('dlq drain: add --dry-run to count or --yes to delete');
    const api = await rt.api();
    const params = dlqParams(opts);
    if (opts.dryRun) {
      const body = await broker.listDlq(api.http(), { ...params, limit: 1 });
      const total = Number(body.total ?? 0);
      if (total === 0) throw noop();
      return rt.out.done(`[dry-run] would delete ${total} DLQ entr${total === 1 ? 'y' : 'ies'}`);
    }
    const { processed, errors } = await eachDlqRow(rt, api, params, opts.limit || 200, 'drain', async (row) => {
      const body = await broker.deleteMessage(api.http({ signal: null }), row.partitionId, row.transactionId);
      if (body?.success === false || body?.message === 'Message not found') throw serverError(body?.message ?? 'not deleted');
    });
    if (processed === 0 && errors === 0) throw noop();
    rt.out.done(`processed=${processed} errors=${errors}`);
    if (errors > 0) throw new CliError('', EXIT.server, true);
  });
}
