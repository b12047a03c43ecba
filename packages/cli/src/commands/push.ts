/**
 * `push <queue>` (docs/cli.md): NDJSON from `--data`, `-f` or stdin, streamed in batches of `--batch` items, so a
 * large file never sits in memory whole and an invalid line stops the run after the batches before it were sent.
 * The broker mints transactionIds; results are tallied as queued (queued/buffered), duplicate and failed.
 */
import fs from 'node:fs';
import readline from 'node:readline';
import { Readable } from 'node:stream';
import { push } from '@queen/client/api';
import type { Command } from 'commander';
import { action, positive, sub } from '../command.js';
import { CliError, EXIT, noop, userError } from '../errors.js';

const MAX_LINE = 16 * 1024 * 1024;

/** One wire item of a push (operation `push`). */
interface PushItem {
  queue: string;
  partition?: string;
  payload: unknown;
  transactionId?: string;
  traceId?: string;
}

/** The value at a dotted path of a payload, as a partition name (strings, numbers, booleans only). */
export function partitionFromKey(payload: unknown, dotted: string): string | undefined {
  let value: unknown = payload;
  for (const key of dotted.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

function lines(opts: { data?: string; file?: string }): AsyncIterable<string> {
  if (opts.data !== undefined) return Readable.from(opts.data.split('\n'));
  let input: NodeJS.ReadableStream;
  if (opts.file !== undefined && opts.file !== '-') {
    if (!fs.existsSync(opts.file)) throw userError(`cannot read ${opts.file}: no such file`);
    input = fs.createReadStream(opts.file);
  } else {
    if (process.stdin.isTTY) throw userError('no input: pass --data \'<json>\', -f <file>, or pipe NDJSON on stdin');
    input = process.stdin;
  }
  return readline.createInterface({ input, crlfDelay: Infinity });
}

/** Registers `push`. */
export function registerPush(program: Command): void {
  action(sub(program, 'push <queue>', 'Push messages: one JSON value per line (NDJSON) from --data, -f or stdin', [
    `queenctl push orders --data '{"id":1}'`,
    'queenctl push orders -f orders.ndjson --partition-key customer.id',
    `echo '{"transactionId":"o-1","data":{"id":1}}' | queenctl push orders --wrapped`,
  ])
    .option('--data <json>', 'the message(s): one JSON value per line')
    .option('-f, --file <path>', 'NDJSON file (- = stdin)')
    .option('--partition <name>', 'partition of every message')
    .option('--partition-key <path>', 'partition from this dotted path of each payload (string, number or boolean)')
    .option('--batch <n>', 'items per request', positive, 100)
    .option('--trace-id <uuid>', 'traceId of every item')
    .option('--transaction-id <id>', 'transactionId of the first item')
    .option('--wrapped', 'each line is {transactionId?, traceId?, partition?, data}')
    .option('--dry-run', 'count the messages, send nothing'), async (rt, opts, queue) => {
    const api = opts.dryRun ? undefined : await rt.api();
    const tally = { queued: 0, duplicate: 0, failed: 0 };
    const failures: string[] = [];
    let read = 0;
    let batch: PushItem[] = [];
    const send = async () => {
      if (batch.length === 0) return;
      const items = batch;
      batch = [];
      if (!api) return;
      const results = await push(api.http(), { items });
      for (const r of results) {
        if (r.status === 'queued' || r.status === 'buffered') tally.queued++;
        else if (r.status === 'duplicate') tally.duplicate++;
        else {
          tally.failed++;
          if (failures.length < 5) failures.push(`item ${read - items.length + r.index + 1}: ${r.error}`);
        }
      }
    };
    let n = 0;
    for await (const raw of lines(opts)) {
      n++;
      if (raw.length > MAX_LINE) throw userError(`line ${n}: longer than 16 MiB`);
      const line = raw.trim();
      if (line === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw userError(`line ${n}: invalid JSON (${(error as Error).message})${read > 0 && !opts.dryRun ? `; ${read - batch.length} earlier messages were already sent` : ''}`);
      }
      let item: PushItem = { queue: queue!, payload: value };
      if (opts.wrapped) {
        if (value === null || typeof value !== 'object' || Array.isArray(value)) throw userError(`line ${n}: --wrapped expects an object {transactionId?, traceId?, partition?, data}`);
        const w = value as Record<string, unknown>;
        item = { queue: queue!, payload: w.data ?? null };
        if (typeof w.transactionId === 'string') item.transactionId = w.transactionId;
        if (typeof w.traceId === 'string') item.traceId = w.traceId;
        if (typeof w.partition === 'string') item.partition = w.partition;
      }
      item.partition ??= (opts.partitionKey ? partitionFromKey(item.payload, opts.partitionKey) : undefined) ?? opts.partition;
      if (item.partition === undefined) delete item.partition;
      if (opts.traceId && item.traceId === undefined) item.traceId = opts.traceId;
      if (opts.transactionId && read === 0 && item.transactionId === undefined) item.transactionId = opts.transactionId;
      read++;
      batch.push(item);
      if (batch.length >= opts.batch) await send();
    }
    await send();
    if (read === 0) throw noop();
    if (opts.dryRun) {
      rt.out.done(`[dry-run] would push ${read} message${read === 1 ? '' : 's'} to "${queue}"`);
      return;
    }
    if (rt.out.explicit) await rt.out.print(tally);
    else rt.out.done(`queued=${tally.queued} duplicate=${tally.duplicate} failed=${tally.failed}`);
    if (tally.failed > 0) {
      for (const f of failures) process.stderr.write(`queenctl: push failed: ${f}\n`);
      throw new CliError('', EXIT.server, true);
    }
  });
}
