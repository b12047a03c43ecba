/** Naming rules shared by every route (API.md 1.10). */

/** The reserved group of queue mode. */
export const QUEUE_MODE = '__QUEUE_MODE__';

/** The partition used when a push names none. */
export const DEFAULT_PARTITION = 'Default';

/** True for a non-empty name of at most 255 characters that PostgreSQL can store (no NUL). */
export function isValidName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && !name.includes('\u0000');
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
