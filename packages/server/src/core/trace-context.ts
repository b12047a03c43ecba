/**
 * W3C Trace Context carried by messages (docs/api.md 4.4, docs/monitoring.md "Tracing"): the syntax checks of
 * `traceparent` and `tracestate` (https://www.w3.org/TR/trace-context/), and the one stored form of a pair.
 *
 * Stored form (migration 0016, `segments.trace_contexts`): the traceparent, then a space and the tracestate when
 * there is one. A traceparent never contains a space, so the first space splits the two. One text per message
 * keeps the push path at one more array, which stays null for segments without any context.
 * sql/functions/trace_context_problem.sql holds the same rules for the SQL API.
 */

/** A message's W3C trace context as the wire carries it. */
export interface TraceContext {
  traceparent: string;
  /** Null when the producer sent none (or an empty one). */
  tracestate: string | null;
}

/** The parsed traceparent's fields (lowercase hex), for spans that link to it. */
export interface TraceParent {
  traceId: string;
  spanId: string;
  flags: number;
}

/**
 * Version 00 exactly (55 characters); a later version may append fields after a '-' (the spec's rule for
 * versions a reader does not know). Lowercase hex only, as the spec requires.
 */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-[0-9a-f-]*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
/** One list member: simple or multi-tenant key, '=', a value of 1-256 printable characters without ',' and '='. */
const TRACESTATE_MEMBER = /^(?:[a-z0-9][_0-9a-z*/-]{0,255}|[a-z0-9][_0-9a-z*/-]{0,240}@[a-z][_0-9a-z*/-]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
/** The spec lets a carrier drop members beyond 512 characters; a message refuses them instead of cutting silently. */
const MAX_TRACESTATE_LENGTH = 512;
const MAX_TRACESTATE_MEMBERS = 32;
/** The spec's optional white space around list members: spaces and tabs only. */
const trimOws = (value: string): string => value.replace(/^[ \t]+|[ \t]+$/g, '');

/** The fields of a valid traceparent, or null. */
export function parseTraceparent(value: string): TraceParent | null {
  const match = TRACEPARENT.exec(value);
  if (match === null) return null;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return null;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return null;
  return { traceId: traceId!, spanId: spanId!, flags: parseInt(flags!, 16) };
}

/** True for a valid tracestate: at most 32 well-formed members (empty ones allowed), at most 512 characters. */
export function isValidTracestate(value: string): boolean {
  if (value.length > MAX_TRACESTATE_LENGTH) return false;
  let members = 0;
  for (const raw of value.split(',')) {
    const member = trimOws(raw);
    if (member === '') continue;
    if (!TRACESTATE_MEMBER.test(member) || ++members > MAX_TRACESTATE_MEMBERS) return false;
  }
  return true;
}

/** The stored form of a checked pair (see the design note); an empty tracestate is none. */
export function storedTraceContext(traceparent: string, tracestate: string | null): string {
  const state = tracestate === null ? '' : trimOws(tracestate);
  return state === '' ? traceparent : `${traceparent} ${state}`;
}

/** The pair back from its stored form. */
export function traceContextOf(stored: string): TraceContext {
  const space = stored.indexOf(' ');
  return space === -1 ? { traceparent: stored, tracestate: null } : { traceparent: stored.slice(0, space), tracestate: stored.slice(space + 1) };
}

/** The pair of a stored context as two nullable fields (the messages API's shape). */
export function traceContextFields(stored: string | null): { traceparent: string | null; tracestate: string | null } {
  return stored === null ? { traceparent: null, tracestate: null } : traceContextOf(stored);
}

/** The JSON members `,"traceparent":...,"tracestate":...` of a stored context (empty when none), for bodies built as text. */
export function traceContextJson(stored: string | null): string {
  if (stored === null) return '';
  const context = traceContextOf(stored);
  return `,"traceparent":"${context.traceparent}"${context.tracestate === null ? '' : `,"tracestate":${JSON.stringify(context.tracestate)}`}`;
}
