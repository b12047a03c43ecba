/**
 * `.gate(fn)` evaluation for one partition's batch (docs/streams-sdk.md), as a pure step over the loaded state.
 * Messages are evaluated in order until the first deny. Each call gets a private copy of the key's state as the
 * last allowed call left it; an allow keeps the copy, a deny discards it (upstream keeps a deny's changes when
 * the key was already allowed in the cycle, because it shares one object; we never do).
 */
import type { StateOp } from './window-reduce.js';
import type { GateDecision } from './types.js';

/** What a gate function sees next to the value. */
export interface GateCallContext {
  state: Record<string, unknown>;
  streamTimeMs: number;
  partitionId: string;
  partition: string;
  key: string;
}

/** The outcome of a gate over one batch. */
export interface GateOutcome {
  /** Envelopes allowed: a prefix of the batch made of whole messages. */
  allowed: number;
  /** Sorted index of the first message with a denied envelope; undefined when nothing was denied. */
  deniedUnit: number | undefined;
  stateOps: StateOp[];
}

function copy(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object') return {};
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

/** Normalises a gate's answer; anything but a boolean or `{allow: boolean}` throws. */
export function gateAllows(decision: unknown): boolean {
  if (decision === true || decision === false) return decision;
  if (decision !== null && typeof decision === 'object' && typeof (decision as { allow?: unknown }).allow === 'boolean') return (decision as { allow: boolean }).allow;
  throw new Error('.gate(fn) must return boolean or { allow: boolean }');
}

/**
 * Runs the gate over `items` (in order; `unit` is the index of the source message) until the first deny; throws
 * what the gate throws. The envelopes of one message (after a flatMap) pass or fail together: a message is
 * acked only when all of them were allowed, so no part of a message is lost or applied twice.
 */
export async function evaluateGate(input: {
  items: ReadonlyArray<{ key: string; value: unknown; unit: number }>;
  rows: Map<string, unknown>;
  fn: (value: unknown, ctx: GateCallContext) => GateDecision | Promise<GateDecision>;
  streamTimeMs: number;
  partitionId: string;
  partition: string;
}): Promise<GateOutcome> {
  const committed = new Map<string, Record<string, unknown>>();
  let pending = new Map<string, Record<string, unknown>>();
  let allowed = 0;
  let pendingCount = 0;
  let unit = -1;
  for (const item of input.items) {
    if (item.unit !== unit) {
      for (const [key, value] of pending) committed.set(key, value);
      allowed += pendingCount;
      pending = new Map();
      pendingCount = 0;
      unit = item.unit;
    }
    const state = copy(pending.get(item.key) ?? committed.get(item.key) ?? input.rows.get(item.key));
    const ctx: GateCallContext = { state, streamTimeMs: input.streamTimeMs, partitionId: input.partitionId, partition: input.partition, key: item.key };
    if (!gateAllows(await input.fn(item.value, ctx))) {
      return { allowed, deniedUnit: item.unit, stateOps: upserts(committed) };
    }
    pending.set(item.key, copy(ctx.state));
    pendingCount++;
  }
  for (const [key, value] of pending) committed.set(key, value);
  return { allowed: allowed + pendingCount, deniedUnit: undefined, stateOps: upserts(committed) };
}

function upserts(states: Map<string, Record<string, unknown>>): StateOp[] {
  return [...states].map(([key, value]) => ({ type: 'upsert', key, value }));
}
