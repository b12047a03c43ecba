/**
 * From emits to effects: the post stage (`(value, ctx)` operators), then the terminal: `.foreach` runs its
 * function per emit (before the commit, so at-least-once), `.to` becomes push items. Window emits carry an
 * identity, from which each push gets a deterministic transactionId: the broker's (partition, transactionId)
 * dedup then drops the second copy when a flush and a cycle close the same row, or a flush cycle is replayed
 * (both upstream limitations, docs/streams.md).
 */
import { sha256Hex } from './config-hash.js';
import { statelessResult, type StatelessOp, type Terminal } from './pipeline.js';
import type { TraceCarrier } from '../telemetry.js';
import type { EmitContext } from './types.js';
import type { CyclePushItem } from './wire.js';

/** A value on its way to the terminal. */
export interface Emit {
  key: string;
  value: unknown;
  windowKey?: string | undefined;
  windowStart?: number | undefined;
  windowEnd?: number | undefined;
  /** Set for window emits: names the closed row. */
  identity?: string | undefined;
  /** A pass-through emit's source message context, carried to its sink item (window emits have none). */
  trace?: TraceCarrier | undefined;
}

/** Where the emits come from. */
export interface EmitSource {
  partition: string;
  partitionId: string;
  queryId: string;
}

/** The `ctx` of post-stage operators and terminals. */
export function emitContext(e: Emit, source: EmitSource): EmitContext {
  return { partition: source.partition, partitionId: source.partitionId, key: e.key, windowKey: e.windowKey, windowStart: e.windowStart, windowEnd: e.windowEnd };
}

/** Runs the post stage over the emits, in order. */
export async function applyPost(post: readonly StatelessOp[], emits: Emit[], source: EmitSource): Promise<Emit[]> {
  let working = emits;
  for (const op of post) {
    const next: Emit[] = [];
    for (const e of working) {
      next.push(...statelessResult(op, await op.fn(e.value, emitContext(e, source)), e));
    }
    working = next;
  }
  return working;
}

function sinkPartition(terminal: Extract<Terminal, { kind: 'sink' }>, value: unknown, sourcePartition: string): string {
  if (typeof terminal.partition === 'function') return String(terminal.partition(value));
  if (typeof terminal.partition === 'string') return terminal.partition;
  return sourcePartition || 'Default';
}

/** Runs foreach effects, or builds the sink's push items (`[]` without a terminal or for foreach). */
export async function deliver(terminal: Terminal | undefined, emits: Emit[], source: EmitSource): Promise<CyclePushItem[]> {
  if (!terminal) return [];
  if (terminal.kind === 'foreach') {
    for (const e of emits) await terminal.fn(e.value, emitContext(e, source));
    return [];
  }
  const seen = new Map<string, { id: string; n: number }>();
  const items: CyclePushItem[] = [];
  for (const e of emits) {
    const item: CyclePushItem = {
      queue: terminal.queue,
      partition: sinkPartition(terminal, e.value, source.partition),
      payload: e.value !== null && typeof e.value === 'object' ? e.value : { value: e.value },
      ...e.trace,
    };
    if (e.identity !== undefined) {
      let entry = seen.get(e.identity);
      if (!entry) {
        entry = { id: await sha256Hex(`${source.queryId}\u001f${source.partitionId}\u001f${e.identity}`), n: 0 };
        seen.set(e.identity, entry);
      }
      item.transactionId = `qs-${entry.id}-${entry.n++}`;
    }
    items.push(item);
  }
  return items;
}
