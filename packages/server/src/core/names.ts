/** Naming rules shared by every route (API.md 1.10). */

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

/** Namespace and task derived from a dotted queue name: `orders.created.v2` -> `orders` / `created`. */
export function deriveScope(queue: string): { namespace: string; task: string } {
  const parts = queue.split('.');
  return { namespace: parts[0] ?? queue, task: parts[1] ?? '' };
}

/** The effective consumer group: absent or empty means queue mode. */
export function effectiveGroup(group: string | null | undefined): string {
  return group === undefined || group === null || group === '' ? QUEUE_MODE : group;
}
