/**
 * The operator chain as data, and its compilation into stages (docs/streams-sdk.md): pre (stateless) → keyBy →
 * one of {gate, window [+ reducer], pass-through} → post (stateless) → terminal. The typed builders of
 * stream.ts only append nodes; every rule about what may follow what is checked here, with upstream's texts,
 * so a chain built from untyped JavaScript fails the same way.
 */
import { aggregateReducer, foldReducer } from './aggregate.js';
import type { GateDecision } from './types.js';
import type { GateCallContext } from './gate.js';
import type { Reducer } from './window-reduce.js';
import type { WindowSpec } from './windows.js';

/** A user function as the runtime calls it (the typed facade guarantees the argument types). */
export type UserFn = (a: unknown, b?: unknown) => unknown;

/** One operator of a chain. */
export type OpNode =
  | { kind: 'map' | 'filter' | 'flatMap'; fn: UserFn }
  | { kind: 'keyBy'; fn: UserFn }
  | { kind: 'window'; window: WindowSpec }
  | { kind: 'reduce'; fn: UserFn; initial: unknown; hasInitial: boolean }
  | { kind: 'aggregate'; spec: unknown }
  | { kind: 'gate'; fn: UserFn }
  | { kind: 'sink'; queue: string; partition: string | ((value: unknown) => unknown) | undefined }
  | { kind: 'foreach'; fn: UserFn };

/** A stateless operator of the pre or post stage. */
export type StatelessOp = { kind: 'map' | 'filter' | 'flatMap'; fn: UserFn };

/** What a stateless operator's result `out` makes of `item`: the value replaced, the item kept or dropped, or one item per element. */
export function statelessResult<E extends { value: unknown }>(op: StatelessOp, out: unknown, item: E): E[] {
  if (op.kind === 'map') return [{ ...item, value: out }];
  if (op.kind === 'filter') return out ? [item] : [];
  if (!Array.isArray(out)) throw new Error(`flatMap fn must return an array (got ${typeof out})`);
  return out.map((value: unknown) => ({ ...item, value }));
}

/** A terminal. */
export type Terminal = Extract<OpNode, { kind: 'sink' | 'foreach' }>;

/** A compiled chain. */
export interface Pipeline {
  sourceQueue: string;
  pre: StatelessOp[];
  keyBy: UserFn | undefined;
  window: WindowSpec | undefined;
  reducer: Reducer | undefined;
  gate: ((value: unknown, ctx: GateCallContext) => GateDecision | Promise<GateDecision>) | undefined;
  post: StatelessOp[];
  terminal: Terminal | undefined;
  /** One config_hash descriptor per operator, in chain order. */
  descriptors: Array<Record<string, unknown>>;
}

/** The queue name of a builder or ref: `name`, else `_queueName`, else `queueName`. */
export function queueNameOf(ref: unknown, role: 'source' | 'sink'): string {
  const r = (ref ?? {}) as { name?: unknown; _queueName?: unknown; queueName?: unknown };
  if (typeof r.name === 'string' && r.name.length > 0) return r.name;
  if (typeof r._queueName === 'string' && r._queueName.length > 0) return r._queueName;
  if (typeof r.queueName === 'string' && r.queueName.length > 0) return r.queueName;
  throw new Error(`Could not extract queue name from ${role === 'sink' ? 'sink target' : 'stream source'}. Pass either a queen.queue("name") builder or { queueName: "name" }.`);
}

function descriptorOf(op: OpNode): Record<string, unknown> {
  switch (op.kind) {
    case 'window':
      return op.window.descriptor;
    case 'reduce':
      return { kind: 'reduce', hasInitial: op.hasInitial };
    case 'aggregate':
      return { kind: 'aggregate', fields: aggregateReducer(op.spec).fields };
    case 'sink':
      return { kind: 'sink', queue: op.queue };
    default:
      return { kind: op.kind };
  }
}

/** Checks the chain rules and splits it into stages; throws upstream's texts on a malformed chain. */
export function compile(sourceQueue: string, ops: readonly OpNode[]): Pipeline {
  const terminalAt = ops.findIndex((op) => op.kind === 'sink' || op.kind === 'foreach');
  if (terminalAt !== -1 && terminalAt !== ops.length - 1) {
    throw new Error(`sink operators (.to / .foreach) must be the last in the chain; found ${ops[terminalAt]!.kind} at position ${terminalAt} of ${ops.length}`);
  }
  const p: Pipeline = { sourceQueue, pre: [], keyBy: undefined, window: undefined, reducer: undefined, gate: undefined, post: [], terminal: undefined, descriptors: ops.map(descriptorOf) };
  let after = false; // past the reducer or gate: stateless operators are post
  for (const op of ops) {
    switch (op.kind) {
      case 'map':
      case 'filter':
      case 'flatMap':
        (after ? p.post : p.pre).push(op);
        break;
      case 'keyBy':
        if (p.keyBy) throw new Error('only one .keyBy() per stream');
        if (after) throw new Error('.keyBy() must come before window/reduce/gate');
        p.keyBy = op.fn;
        break;
      case 'window':
        if (p.window) throw new Error('only one window operator per stream');
        if (p.reducer) throw new Error('window must come before reduce/aggregate');
        if (p.gate) throw new Error('window+reduce is incompatible with .gate() in the same stream');
        p.window = op.window;
        break;
      case 'reduce':
      case 'aggregate':
        if (p.reducer) throw new Error('only one reduce/aggregate per stream');
        if (!p.window) throw new Error('reduce/aggregate requires a preceding window operator');
        if (p.gate) throw new Error('reduce/aggregate is incompatible with .gate() in the same stream');
        p.reducer = op.kind === 'reduce' ? foldReducer(op.fn, op.initial) : aggregateReducer(op.spec);
        after = true;
        break;
      case 'gate':
        if (p.gate) throw new Error('only one .gate() per stream');
        if (p.window || p.reducer) throw new Error('.gate() is incompatible with windowing/reduce in the same stream');
        p.gate = op.fn as Pipeline['gate'];
        after = true;
        break;
      case 'sink':
      case 'foreach':
        p.terminal = op;
        break;
    }
  }
  return p;
}
