/** The warning before a pop of a queue that does not exist, with the closest existing name. */
import * as broker from '@queen/client/api';
import type { Api } from '../../api.js';
import type { Runtime } from '../../runtime.js';

/** Edit distance of two names (the closest existing queue to a typo). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Before a queue-scoped pop, which creates a missing queue by design (docs/api.md 5): says on stderr that the queue
 * does not exist, before any long poll, with the closest existing name when one is near. A failed check stays
 * silent (the pop itself reports what is wrong).
 */
export async function warnIfMissing(rt: Runtime, api: Api, queue: string): Promise<void> {
  const found = await broker.getQueue(api.http({ allowMissing: true }), queue).catch(() => null);
  if (found === null || !('error' in found)) return;
  const listed = await broker.listQueues(api.http(), { limit: 1000 }).catch(() => null);
  const names = (listed?.queues ?? []).map((q) => q.name);
  const scored = names.map((name) => ({ name, distance: editDistance(queue.toLowerCase(), name.toLowerCase()) })).sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name));
  const best = scored[0];
  const near = best !== undefined && best.distance <= Math.max(2, Math.floor(queue.length / 3));
  rt.out.warn(`queue "${queue}" does not exist; the broker creates it on this pop${near ? ` (did you mean "${best.name}"?)` : ''}`);
}
