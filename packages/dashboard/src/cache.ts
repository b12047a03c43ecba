/**
 * The shared queue list (operation listQueues): 30 s TTL, concurrent callers share one request,
 * mutations force a reload. It also yields the namespace and task option lists (blank names dropped).
 */
import { broker, http } from './api.js';
import type { QueueRow } from './types.js';

const TTL_MS = 30_000;
let cached: { at: number; rows: QueueRow[] } | null = null;
let inflight: Promise<QueueRow[]> | null = null;

/** The queue list, from the cache when fresh. */
export function queueList(force = false): Promise<QueueRow[]> {
  if (!force && cached !== null && Date.now() - cached.at < TTL_MS) return Promise.resolve(cached.rows);
  if (inflight !== null) return inflight;
  inflight = broker.listQueues(http()).then(
    (res) => {
      cached = { at: Date.now(), rows: res.queues };
      inflight = null;
      return res.queues;
    },
    (error: unknown) => {
      inflight = null;
      throw error;
    },
  );
  return inflight;
}

/** Drops the cache (after a create, delete or clear). */
export function invalidateQueues(): void {
  cached = null;
}

/** Distinct non-blank values of a field, sorted. */
export function optionsOf(rows: QueueRow[], field: 'namespace' | 'task'): string[] {
  return [...new Set(rows.map((r) => r[field]).filter((v): v is string => v !== null && v.trim() !== ''))].sort();
}
