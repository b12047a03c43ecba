/**
 * Strings that reach PostgreSQL (docs/api.md 1.5, 1.9, 1.10): a `text` value cannot hold a NUL byte, and the
 * driver silently turns an unpaired UTF-16 surrogate into U+FFFD. Both are refused here, once, at the edge,
 * with the error text of the field that carried them, so no database error text ever reaches a client and
 * nothing is stored other than what was sent.
 *
 * Request bodies are checked whole (keys and values, UUID fields included) after parsing, except the opaque
 * JSON of `payload` and `data` (stored as JSON text, where JSON.stringify escapes both). A UUID field holding
 * storable text that is no UUID is left to the route: a look-up that misses (§1.9). Path parameters are checked after
 * decoding (server.ts), except those that only key a look-up (core/messages.ts#messageKey makes them miss);
 * query values when a route reads them (query.ts). A name a route creates or changes something by also
 * passes the name rule (`checkedName`), with its field's text.
 */
import { isStorableText, nameError } from '../core/names.js';
import { invalid, InvalidInput } from '../errors.js';

/** Raised for a string PostgreSQL cannot store as sent; `message` is the wire error text of its field. */
export class InvalidText extends InvalidInput {
  constructor(readonly field: string) {
    super(fieldError(field));
  }
}

/** The wire texts of docs/api.md for the named fields; any other field is `Invalid <field>`. */
const FIELD_ERRORS: Record<string, string> = {
  queue: 'Invalid queue name',
  queueName: 'Invalid queue name',
  partition: 'Invalid partition name',
  consumerGroup: 'Invalid consumerGroup',
  group: 'Invalid consumerGroup',
  traceId: 'Invalid traceId: must be a UUID',
};

/** The error text for an unstorable value of `field`. */
function fieldError(field: string): string {
  return FIELD_ERRORS[field] ?? `Invalid ${field}`;
}

/** Body keys whose value is opaque message JSON (escaped on the way to SQL): any string survives there. */
const UNCHECKED_KEYS = new Set(['payload', 'data']);
/** Path parameters that only key a look-up: the route turns an id no row can have into a miss (docs/api.md 1.9). */
const LOOKUP_PARAMS = new Set(['partitionId', 'leaseId', 'transactionId']);

/**
 * Throws InvalidText for the first unstorable string of a parsed body, named by the nearest object key
 * above it. Iterative (the depth was bounded before parsing, body.ts), so no input can overflow the stack.
 */
export function assertStorableBody(body: Record<string, unknown>): void {
  const stack: Array<{ value: unknown; field: string }> = [{ value: body, field: 'body' }];
  while (stack.length > 0) {
    const { value, field } = stack.pop()!;
    if (typeof value === 'string') {
      if (!isStorableText(value)) throw new InvalidText(field);
    } else if (Array.isArray(value)) {
      for (const element of value) stack.push({ value: element, field });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        if (!isStorableText(key)) throw new InvalidText(field);
        if (!UNCHECKED_KEYS.has(key)) stack.push({ value: child, field: key });
      }
    }
  }
}

/** Throws InvalidText when a decoded path parameter cannot be stored (look-up keys are left to the route). */
export function assertStorableParam(name: string, value: string): void {
  if (!LOOKUP_PARAMS.has(name) && !isStorableText(value)) throw new InvalidText(name);
}

/**
 * A name a route creates or changes something by: the name rule of docs/api.md 1.10 (core/names.ts), else
 * an `invalid` with its text (the pop routes answer it in their own shape, http/errors.ts).
 */
export function checkedName(value: string, field: string): string {
  const badName = nameError(value, field);
  if (badName !== null) throw invalid(badName);
  return value;
}
