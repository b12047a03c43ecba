/** Naming rules shared by every route (docs/api.md 1.10). */

/** The reserved group of queue mode. */
export const QUEUE_MODE = '__QUEUE_MODE__';

/** The partition used when a push names none. */
export const DEFAULT_PARTITION = 'Default';

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when PostgreSQL stores `value` exactly as sent: no NUL byte, no unpaired UTF-16 surrogate. */
export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** True for a non-empty name of at most 255 characters that PostgreSQL stores as sent (isStorableText). */
export function isValidName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && isStorableText(name);
}

/**
 * True for `.` and `..`: as a URL path segment, browsers, fetch and curl resolve them (also when sent as
 * `%2E%2E`), so a request about such a name would reach another resource (docs/decisions.md "Dot names").
 */
function isDotSegment(name: string): boolean {
  return name === '.' || name === '..';
}

/**
 * The name rule of every door that creates or addresses something by name (docs/api.md 1.10): null when
 * `name` is valid, else the error text naming `field`: `Invalid <field>` (empty, over 255 characters,
 * unstorable) or `Invalid <field>: "." and ".." are not allowed`.
 */
export function nameError(name: string, field: string): string | null {
  if (!isValidName(name)) return `Invalid ${field}`;
  if (isDotSegment(name)) return `Invalid ${field}: "." and ".." are not allowed`;
  return null;
}

/** Namespace and task derived from a dotted queue name: `orders.created.v2` -> `orders` / `created`. */
export function deriveScope(queue: string): { namespace: string; task: string } {
  const parts = queue.split('.');
  return { namespace: parts[0] ?? queue, task: parts[1] ?? '' };
}

/** The effective consumer group: absent or empty means queue mode. */
export function effectiveGroup(group: string | null | undefined): string {
  return group === undefined || group === null || group === '' ? QUEUE_MODE : group;
}
