/**
 * One cycle of a tumbling, sliding or cron window with a reducer, as a pure step: the shard's stored windows
 * plus this batch's events in, the state ops and the emits of closed windows out (docs/streams-sdk.md). Every
 * stored window of the operator is checked, including ones without new events; a closed window is emitted
 * once and its row deleted; one that opens and closes in one batch is never stored.
 */
import { isClosed, parseWindowStateKey, windowStateKey, type WindowSlot } from './windows.js';

/** A state op of a cycle. */
export type StateOp = { type: 'upsert'; key: string; value: unknown } | { type: 'delete'; key: string };

/** A reducer: the fold and a fresh initial accumulator per window. */
export interface Reducer {
  fold(acc: unknown, value: unknown): unknown;
  initial(): unknown;
}

/** One event placed in one window. */
export interface WindowedEvent {
  key: string;
  slot: WindowSlot;
  value: unknown;
  /** transactionId of the source message (names the row it opens, for emit ids). */
  origin: string;
}

/** A closed window (or session) on its way to the post stage. */
export interface WindowEmit {
  key: string;
  windowKey: string;
  windowStart: number;
  windowEnd: number;
  value: unknown;
  /** Identity of the emitted row: stable across a replay, a flush and a cycle that close the same row. */
  identity: string;
}

/** What a stored window row holds (`origin` is ours; rows written by other SDKs lack it). */
export interface StoredWindow {
  acc: unknown;
  windowStart: number;
  windowEnd: number;
  origin?: string;
}

interface Accumulator {
  key: string;
  windowKey: string;
  windowStart: number;
  windowEnd: number;
  acc: unknown;
  origin: string;
  touched: boolean;
  seeded: boolean;
}

/** Reads a stored row of this operator back into an accumulator; null for other rows. */
export function storedWindow(stateKey: string, value: unknown, tag: string): Omit<Accumulator, 'touched' | 'seeded'> | null {
  const parts = parseWindowStateKey(stateKey);
  if (!parts || parts.tag !== tag) return null;
  const row = (value !== null && typeof value === 'object' ? value : {}) as Partial<StoredWindow>;
  const windowStart = typeof row.windowStart === 'number' ? row.windowStart : Date.parse(parts.windowKey) || 0;
  const windowEnd = typeof row.windowEnd === 'number' ? row.windowEnd : windowStart;
  return {
    key: parts.userKey,
    windowKey: parts.windowKey,
    windowStart,
    windowEnd,
    acc: row.acc !== undefined ? row.acc : value,
    origin: typeof row.origin === 'string' ? row.origin : '',
  };
}

/**
 * Emit identity of a window row: its key, the message that opened it and its content. Two closes of the same
 * row with the same content (a flush racing a cycle, a replayed flush cycle) share it and are deduplicated by
 * the broker; a row that grew after it was emitted gets a new one, so its data is never dropped as a duplicate.
 */
export function windowIdentity(stateKey: string, origin: string, acc: unknown): string {
  return `${stateKey}\u001f${origin}\u001f${canonicalJson(acc)}`;
}

/** JSON with object keys sorted, so a value read back from jsonb (which reorders keys) prints the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().filter((k) => (value as Record<string, unknown>)[k] !== undefined);
    return `{${entries.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Applies a batch to the shard's windows of operator `tag` and closes what `clock` has passed. */
export async function reduceWindows(input: {
  rows: Map<string, unknown>;
  events: WindowedEvent[];
  tag: string;
  graceMs: number;
  clock: number | undefined;
  reducer: Reducer;
}): Promise<{ stateOps: StateOp[]; emits: WindowEmit[] }> {
  const windows = new Map<string, Accumulator>();
  for (const [stateKey, value] of input.rows) {
    const stored = storedWindow(stateKey, value, input.tag);
    if (stored) windows.set(stateKey, { ...stored, touched: false, seeded: true });
  }
  for (const event of input.events) {
    const stateKey = windowStateKey(input.tag, event.slot.windowStart, event.key);
    let entry = windows.get(stateKey);
    if (!entry) {
      entry = {
        key: event.key,
        windowKey: new Date(event.slot.windowStart).toISOString(),
        windowStart: event.slot.windowStart,
        windowEnd: event.slot.windowEnd,
        acc: input.reducer.initial(),
        origin: event.origin,
        touched: false,
        seeded: false,
      };
      windows.set(stateKey, entry);
    }
    entry.acc = await input.reducer.fold(entry.acc, event.value);
    entry.touched = true;
  }
  const stateOps: StateOp[] = [];
  const emits: WindowEmit[] = [];
  for (const stateKey of [...windows.keys()].sort(byteOrder)) {
    const entry = windows.get(stateKey)!;
    if (isClosed(entry.windowEnd, input.graceMs, input.clock)) {
      emits.push({ key: entry.key, windowKey: entry.windowKey, windowStart: entry.windowStart, windowEnd: entry.windowEnd, value: entry.acc, identity: windowIdentity(stateKey, entry.origin, entry.acc) });
      if (entry.seeded) stateOps.push({ type: 'delete', key: stateKey });
    } else if (entry.touched) {
      const value: StoredWindow = { acc: entry.acc, windowStart: entry.windowStart, windowEnd: entry.windowEnd, origin: entry.origin };
      stateOps.push({ type: 'upsert', key: stateKey, value });
    }
  }
  return { stateOps, emits };
}

/** Byte (code unit) order, the order of the broker's `ORDER BY key` on C-collated text and of `<`. */
export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
