/**
 * One partition's batch, from popped messages to what the cycle commits (docs/streams-sdk.md): sort, pre stage and
 * keyBy, then the gate, the window (with late events, the watermark and the close clock) or pass-through. The
 * result is a plan: state ops, the emits for the post stage, and the ack. State is read through an injected
 * loader, so this module does no HTTP and the runner does the committing.
 */
import { carrierOf } from '../telemetry.js';
import type { Emit } from './emit.js';
import { evaluateGate } from './gate.js';
import { statelessResult, type Pipeline } from './pipeline.js';
import { reduceSessions, type SessionEvent } from './session.js';
import type { ErrorContext, SourceMessage } from './types.js';
import { byteOrder, reduceWindows, type StateOp, type WindowedEvent } from './window-reduce.js';
import { advanceWatermark, eventTimeOf, isLate, WATERMARK_KEY } from './windows.js';

/** A value carried through the pre stage, with its source message and state key. */
export interface Envelope {
  msg: SourceMessage;
  /** Index of `msg` in the sorted batch. */
  unit: number;
  key: string;
  value: unknown;
}

/** What a cycle commits, before the post stage and the terminal. */
export interface CyclePlan {
  stateOps: StateOp[];
  emits: Emit[];
  /** The message the ack names, and how many messages it settles; null: commit nothing at all. */
  ack: { message: SourceMessage; count: number } | null;
  releaseLease: boolean;
  lateEvents: number;
  /** The shard's watermark after this cycle (event time), to cache once committed. */
  watermark: number | undefined;
  /** Processing time: the close clock of this cycle (the batch's largest createdAt). */
  streamTime: number | undefined;
  gateAllows: number;
  gateDenials: number;
  /** Set when the gate function threw: the cycle is aborted and the error reported as `gate-eval`. */
  gateFailure?: { error: unknown };
}

/** What the planner needs from the runner. */
export interface PlanEnv {
  partitionId: string;
  partition: string;
  /** Loads all rows of the shard. */
  loadState(): Promise<Map<string, unknown>>;
  /** The cached watermark of the shard (used when state is not loaded). */
  cachedWatermark: number | undefined;
  /** Reports a per-message error that skips the message (phase `window-apply`). */
  report(error: unknown, context: ErrorContext): void;
}

/** Partition order: (`Date.parse(createdAt)`, then `id` compared as a string). */
export function sortMessages<T extends { createdAt: string; id: string }>(messages: readonly T[]): T[] {
  return [...messages].sort((a, b) => (Date.parse(a.createdAt) || 0) - (Date.parse(b.createdAt) || 0) || byteOrder(a.id, b.id));
}

/** The pre stage and keyBy: every function sees the original message; the last map/flatMap sets the value. */
export async function preStage(p: Pipeline, sorted: readonly SourceMessage[]): Promise<Envelope[]> {
  let envelopes: Envelope[] = sorted.map((msg, unit) => ({ msg, unit, key: msg.partitionId, value: msg.data }));
  for (const op of p.pre) {
    const next: Envelope[] = [];
    for (const env of envelopes) {
      next.push(...statelessResult(op, await op.fn(env.msg), env));
    }
    envelopes = next;
  }
  if (p.keyBy) for (const env of envelopes) env.key = String(await p.keyBy(env.msg));
  return envelopes;
}

/** The emit of a value that passed through (no window): it keeps its source message's trace context. */
function passThrough(e: Envelope): Emit {
  const trace = carrierOf(e.msg);
  return trace === undefined ? { key: e.key, value: e.value } : { key: e.key, value: e.value, trace };
}

function fullAck(sorted: readonly SourceMessage[]): CyclePlan['ack'] {
  const last = sorted[sorted.length - 1];
  return last ? { message: last, count: sorted.length } : null;
}

function basePlan(sorted: readonly SourceMessage[]): CyclePlan {
  return { stateOps: [], emits: [], ack: fullAck(sorted), releaseLease: true, lateEvents: 0, watermark: undefined, streamTime: undefined, gateAllows: 0, gateDenials: 0 };
}

/** Plans the cycle of one partition's (unsorted) messages. Throws to abort the cycle uncommitted. */
export async function planCycle(p: Pipeline, messages: readonly SourceMessage[], env: PlanEnv): Promise<CyclePlan> {
  const sorted = sortMessages(messages);
  const envelopes = await preStage(p, sorted);
  if (p.gate) return planGate(p, sorted, envelopes, env);
  if (p.window) return planWindow(p, sorted, envelopes, env);
  const plan = basePlan(sorted);
  plan.emits = envelopes.map(passThrough);
  return plan;
}

async function planGate(p: Pipeline, sorted: readonly SourceMessage[], envelopes: Envelope[], env: PlanEnv): Promise<CyclePlan> {
  const rows = await env.loadState();
  const plan = basePlan(sorted);
  let outcome: Awaited<ReturnType<typeof evaluateGate>>;
  try {
    outcome = await evaluateGate({ items: envelopes, rows, fn: p.gate!, streamTimeMs: Date.now(), partitionId: env.partitionId, partition: env.partition });
  } catch (error) {
    return { ...plan, ack: null, gateFailure: { error } };
  }
  plan.stateOps = outcome.stateOps;
  plan.emits = envelopes.slice(0, outcome.allowed).map(passThrough);
  plan.gateAllows = outcome.allowed;
  if (outcome.deniedUnit !== undefined) {
    // Settle only the messages before the denied one: it and everything after stay leased, in order.
    plan.gateDenials = envelopes.length - outcome.allowed;
    plan.releaseLease = false;
    plan.ack = outcome.deniedUnit === 0 ? null : { message: sorted[outcome.deniedUnit - 1]!, count: outcome.deniedUnit };
  }
  return plan;
}

async function planWindow(p: Pipeline, sorted: readonly SourceMessage[], envelopes: Envelope[], env: PlanEnv): Promise<CyclePlan> {
  const w = p.window!;
  if (w.kind === 'session' && !p.reducer) throw new Error('windowSession requires a downstream .reduce() or .aggregate()');
  const rows = p.reducer ? await env.loadState() : new Map<string, unknown>();
  const stored = (rows.get(WATERMARK_KEY) as { eventTimeMs?: unknown } | undefined)?.eventTimeMs;
  const wmBefore = w.eventTime ? (typeof stored === 'number' ? stored : env.cachedWatermark) : undefined;
  const plan = basePlan(sorted);
  let maxEventTime: number | undefined;
  const timed: Array<{ env: Envelope; ts: number }> = [];
  for (const e of envelopes) {
    let ts: number | null;
    try {
      ts = eventTimeOf(e.msg, w.eventTime);
      if (ts === null) throw new Error(`window${w.kind[0]!.toUpperCase()}${w.kind.slice(1)} could not determine timestamp for message`);
    } catch (error) {
      env.report(error, { phase: 'window-apply', partition: env.partitionId, message: e.msg });
      continue;
    }
    if (maxEventTime === undefined || ts > maxEventTime) maxEventTime = ts;
    if (w.eventTime && isLate(ts, wmBefore) && w.onLate === 'drop') {
      plan.lateEvents++;
      continue;
    }
    timed.push({ env: e, ts });
  }
  if (!p.reducer) {
    plan.emits = timed.flatMap(({ env: e, ts }) => w.assign(ts).map((slot) => ({ key: e.key, value: e.value, windowKey: new Date(slot.windowStart).toISOString(), ...slot })));
    return plan;
  }
  let clock: number | undefined;
  if (w.eventTime) {
    plan.watermark = advanceWatermark(wmBefore, maxEventTime, w.allowedLatenessMs);
    clock = plan.watermark;
  } else {
    clock = Math.max(...sorted.map((m) => Date.parse(m.createdAt) || 0));
    plan.streamTime = clock;
  }
  const result =
    w.kind === 'session'
      ? await reduceSessions({ rows, tag: w.tag, gapMs: w.gapMs, graceMs: w.graceMs, clock, reducer: p.reducer, events: timed.map(({ env: e, ts }): SessionEvent => ({ key: e.key, ts, value: e.value, origin: e.msg.transactionId })) })
      : await reduceWindows({
          rows,
          tag: w.tag,
          graceMs: w.graceMs,
          clock,
          reducer: p.reducer,
          events: timed.flatMap(({ env: e, ts }) => w.assign(ts).map((slot): WindowedEvent => ({ key: e.key, slot, value: e.value, origin: e.msg.transactionId }))),
        });
  plan.stateOps = result.stateOps;
  plan.emits = result.emits;
  if (plan.watermark !== undefined) plan.stateOps.push({ type: 'upsert', key: WATERMARK_KEY, value: { eventTimeMs: plan.watermark } });
  return plan;
}
