/**
 * Session windows (docs/streams-sdk.md) as a pure step. Each key has at most one open session
 * `{acc, sessionStart, lastEventTime}`; events in arrival order start one, extend it (`ts ≤ last + gap`,
 * `lastEventTime` takes the maximum) or close it and start the next. After the batch every session with
 * `last + gap + grace ≤ clock` is emitted and its row deleted.
 */
import { canonicalJson, type Reducer, type StateOp, type WindowEmit } from './window-reduce.js';
import { KEY_SEPARATOR, isClosed, sessionStateKey } from './windows.js';

/** One event for a session window. */
export interface SessionEvent {
  key: string;
  ts: number;
  value: unknown;
  origin: string;
}

/** A stored open session (`origin` is ours; rows written by other SDKs lack it). */
export interface StoredSession {
  acc: unknown;
  sessionStart: number;
  lastEventTime: number;
  origin?: string;
}

interface Session {
  acc: unknown;
  sessionStart: number;
  lastEventTime: number;
  origin: string;
  dirty: boolean;
  seeded: boolean;
  closed: boolean;
}

function toEmit(tag: string, gapMs: number, key: string, s: Session): WindowEmit {
  return {
    key,
    windowKey: new Date(s.sessionStart).toISOString(),
    windowStart: s.sessionStart,
    windowEnd: s.lastEventTime + gapMs,
    value: s.acc,
    identity: `${sessionStateKey(tag, key)}${KEY_SEPARATOR}${s.sessionStart}${KEY_SEPARATOR}${s.origin}${KEY_SEPARATOR}${canonicalJson(s.acc)}`,
  };
}

/** Applies a batch to the shard's open sessions and closes the ones `clock` has passed. */
export async function reduceSessions(input: {
  rows: Map<string, unknown>;
  events: SessionEvent[];
  tag: string;
  gapMs: number;
  graceMs: number;
  clock: number | undefined;
  reducer: Reducer;
}): Promise<{ stateOps: StateOp[]; emits: WindowEmit[] }> {
  const prefix = `${input.tag}${KEY_SEPARATOR}open${KEY_SEPARATOR}`;
  const sessions = new Map<string, Session>();
  for (const [stateKey, value] of input.rows) {
    if (!stateKey.startsWith(prefix) || value === null || typeof value !== 'object') continue;
    const row = value as Partial<StoredSession>;
    if (typeof row.sessionStart !== 'number' || typeof row.lastEventTime !== 'number') continue;
    sessions.set(stateKey.slice(prefix.length), {
      acc: row.acc !== undefined ? row.acc : input.reducer.initial(),
      sessionStart: row.sessionStart,
      lastEventTime: row.lastEventTime,
      origin: typeof row.origin === 'string' ? row.origin : '',
      dirty: false,
      seeded: true,
      closed: false,
    });
  }
  const emits: WindowEmit[] = [];
  for (const event of input.events) {
    let s = sessions.get(event.key);
    if (s && event.ts <= s.lastEventTime + input.gapMs) {
      s.lastEventTime = Math.max(s.lastEventTime, event.ts);
      s.dirty = true;
    } else {
      if (s) emits.push(toEmit(input.tag, input.gapMs, event.key, s));
      // A replaced seeded row is overwritten by the new session's upsert (or deleted if that closes too).
      s = { acc: input.reducer.initial(), sessionStart: event.ts, lastEventTime: event.ts, origin: event.origin, dirty: true, seeded: s?.seeded ?? false, closed: false };
      sessions.set(event.key, s);
    }
    s.acc = await input.reducer.fold(s.acc, event.value);
  }
  const stateOps: StateOp[] = [];
  for (const [key, s] of sessions) {
    const stateKey = sessionStateKey(input.tag, key);
    if (isClosed(s.lastEventTime + input.gapMs, input.graceMs, input.clock)) {
      emits.push(toEmit(input.tag, input.gapMs, key, s));
      if (s.seeded) stateOps.push({ type: 'delete', key: stateKey });
    } else if (s.dirty) {
      const value: StoredSession = { acc: s.acc, sessionStart: s.sessionStart, lastEventTime: s.lastEventTime, origin: s.origin };
      stateOps.push({ type: 'upsert', key: stateKey, value });
    }
  }
  return { stateOps, emits };
}
