/**
 * Declarative and bulk writes (docs/cli.md): `apply -f` (Queue and ConsumerGroup documents, YAML or
 * JSON, `---` separated), `tx -f` (a transaction bundle sent as is) and `replay` (a group seek). Every document
 * is validated before the first request, so a typo in the third document changes nothing.
 */
import type { Command } from 'commander';
import * as broker from '@queen/client/api';
import { action, sub } from '../command.js';
import { noop, serverError, userError } from '../errors.js';
import { loadYaml } from '../output.js';
import { mergedConfigure, validateOptions } from '../queue-options.js';
import type { Runtime } from '../runtime.js';
import { seekLabel, seekTarget } from '../time.js';

/** A validated manifest document. */
type Manifest =
  | { kind: 'Queue'; name: string; namespace?: string; task?: string; config: Record<string, number | boolean> }
  | { kind: 'ConsumerGroup'; name: string; queue: string; seekTo?: { toEnd: true } | { timestamp: string } };

const KINDS: Record<string, Manifest['kind']> = { queue: 'Queue', consumergroup: 'ConsumerGroup', cg: 'ConsumerGroup' };

/** Parses and validates every document of a manifest; exit 1 on the first problem. */
export async function parseManifests(text: string): Promise<Manifest[]> {
  const { parseAllDocuments } = await loadYaml();
  const out: Manifest[] = [];
  parseAllDocuments(text).forEach((doc, i) => {
    const where = `document ${i + 1}`;
    if ('errors' in doc && doc.errors.length > 0) throw userError(`${where}: ${doc.errors[0]!.message.split('\n')[0]}`);
    const value = doc.toJSON() as unknown;
    if (value === null || value === undefined) return;
    if (typeof value !== 'object' || Array.isArray(value)) throw userError(`${where}: expected a mapping`);
    const d = value as Record<string, unknown>;
    if (typeof d.name !== 'string' || d.name === '') return;
    const kind = KINDS[String(d.kind ?? 'Queue').toLowerCase()];
    if (!kind) throw userError(`${where}: unknown kind "${String(d.kind)}" (use Queue or ConsumerGroup)`);
    if (kind === 'Queue') {
      out.push({ kind, name: d.name, ...(typeof d.namespace === 'string' ? { namespace: d.namespace } : {}), ...(typeof d.task === 'string' ? { task: d.task } : {}), config: validateOptions(d.config, `${where} (Queue "${d.name}")`) });
    } else {
      if (typeof d.queue !== 'string' || d.queue === '') throw userError(`${where} (ConsumerGroup "${d.name}"): queue is required`);
      const seek = d['seek-to'] ?? d.seekTo;
      out.push({ kind, name: d.name, queue: d.queue, ...(seek !== undefined && seek !== null ? { seekTo: seekTarget(String(seek), `${where} seek-to`) } : {}) });
    }
  });
  return out;
}

async function apply(rt: Runtime, manifests: Manifest[], dryRun: boolean): Promise<void> {
  const api = dryRun ? undefined : await rt.api();
  let applied = 0;
  for (const m of manifests) {
    if (m.kind === 'ConsumerGroup' && !m.seekTo) {
      rt.out.done(`[skip] ConsumerGroup "${m.name}" on "${m.queue}": no seek-to, nothing to apply`);
      continue;
    }
    const detail = m.kind === 'Queue' ? '' : ` seek queue=${m.queue} to=${seekLabel(m.seekTo!)}`;
    if (!api) {
      rt.out.done(`[dry-run] would apply ${m.kind} "${m.name}"${detail}`);
      applied++;
      continue;
    }
    try {
      if (m.kind === 'Queue') {
        const { body } = await mergedConfigure(api, m.name, m.config, m);
        await broker.configure(api.http(), body);
      } else {
        await broker.seekQueue(api.http(), m.name, m.queue!, m.seekTo!);
      }
    } catch (error) {
      throw serverError(`apply ${m.kind} "${m.name}" failed: ${(error as Error).message}${applied > 0 ? ` (${applied} document${applied === 1 ? '' : 's'} before it applied)` : ''}`);
    }
    rt.out.done(`applied ${m.kind} "${m.name}"${detail}`);
    applied++;
  }
  if (applied === 0) throw noop();
}

/** Registers `apply`, `tx` and `replay`. */
export function registerManifests(program: Command): void {
  action(sub(program, 'apply', 'Apply Queue and ConsumerGroup manifests (YAML or JSON, --- separated)', ['queenctl apply -f queues.yaml --dry-run', 'queenctl apply -f queues.yaml', 'cat queues.yaml | queenctl apply -f -'])
    .requiredOption('-f, --file <path>', 'manifest file (- = stdin)')
    .option('--dry-run', 'print what would be applied'), async (rt, opts) => {
    await apply(rt, await parseManifests(await rt.readInput(opts.file)), Boolean(opts.dryRun));
  });

  action(sub(program, 'tx', 'Run a transaction bundle {operations, requiredLeases} (all or nothing)', ['queenctl tx -f bundle.json', 'queenctl tx -f bundle.json --dry-run'])
    .requiredOption('-f, --file <path>', 'bundle file (- = stdin)')
    .option('--dry-run', 'validate and count, send nothing'), async (rt, opts) => {
    const text = await rt.readInput(opts.file);
    let bundle: { operations?: unknown; requiredLeases?: unknown };
    try {
      bundle = JSON.parse(text) as typeof bundle;
    } catch (error) {
      throw userError(`bundle is not valid JSON: ${(error as Error).message}`);
    }
    const ops = bundle?.operations;
    if (!Array.isArray(ops) || ops.length === 0) throw userError('bundle has no operations');
    ops.forEach((op: { type?: unknown; items?: unknown }, i) => {
      if (op === null || typeof op !== 'object') throw userError(`operations[${i}]: not an object`);
      if (op.type === 'push') {
        if (!Array.isArray(op.items) || op.items.length === 0) throw userError(`operations[${i}]: push has no items`);
      } else if (op.type !== 'ack') throw userError(`operations[${i}]: unknown type "${String(op.type)}" (use push or ack)`);
    });
    if (bundle.requiredLeases !== undefined && !Array.isArray(bundle.requiredLeases)) throw userError('requiredLeases must be a list of lease ids');
    const leases = Array.isArray(bundle.requiredLeases) ? bundle.requiredLeases.length : 0;
    if (opts.dryRun) return rt.out.done(`[dry-run] ${ops.length} operations, ${leases} required leases`);
    const api = await rt.api();
    // Sent as written: the checks above catch the common mistakes, the broker answers the rest (docs/api.md §7.1).
    const result = await broker.transaction(api.http({ allowFailure: true }), bundle as broker.TransactionRequest);
    if (result?.success !== true) throw serverError(`transaction failed: ${result?.error ?? 'unknown error'}`);
    await rt.out.result('transaction committed', result);
  });

  action(sub(program, 'replay [queue]', 'Move a consumer group of a queue back (or forward) to a time', ['queenctl replay orders --cg billing --to "1h ago"', 'queenctl replay orders --cg billing --to beginning --dry-run'])
    .requiredOption('--cg <group>', 'consumer group')
    .requiredOption('--to <time>', 'target: beginning, end, now, 15m ago, RFC 3339 ...')
    .option('--dry-run', 'print the seek, do not send it'), async (rt, opts, queue) => {
    if (!queue) throw userError('replay needs a queue: queenctl replay <queue> --cg <group> --to <time>');
    const target = seekTarget(opts.to);
    const line = `replayed cg=${opts.cg} queue=${queue} to=${seekLabel(target)}`;
    if (opts.dryRun) return rt.out.done(`[dry-run] ${line.replace('replayed', 'would replay')}`);
    const api = await rt.api();
    const body = await broker.seekQueue(api.http(), opts.cg, queue, target);
    await rt.out.result(line, body);
  });
}
