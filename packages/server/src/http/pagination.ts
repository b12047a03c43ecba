/**
 * `limit` / `offset` of the admin listings (docs/api.md 7.2, 7.6). A limit that is absent, not an integer or
 * below 1 takes the route's default (null: the largest page) and is clamped to the route's maximum, at most
 * MAX_PAGE_SIZE;
 * an offset that is absent, not an integer or negative is 0. Either above 2 147 483 647 (a PostgreSQL
 * integer) is a 400 naming it. Listings echo the values in `pagination`.
 */
import type { Query } from './query.js';

const MAX_PAGE_VALUE = 2_147_483_647;

/**
 * The largest page a listing answers unless it names its own (docs/configuration.md "Bounds"): a larger
 * `limit`, or none on a listing without a default, is clamped to it, and `pagination` echoes the limit applied.
 */
export const MAX_PAGE_SIZE = 1000;

/**
 * The queue list's own largest page: the reference lists every queue, and the dashboard's queue view reads
 * them all at once (10 000 queues are ~200 KB); bounded all the same.
 */
export const MAX_QUEUE_LIST_SIZE = 100_000;

/** One page of a listing. */
export interface Page {
  limit: number;
  offset: number;
}

/** Reads `limit` and `offset`; `defaultLimit` null means the largest page. */
export function pageOf(query: Query, defaultLimit: number | null, maxLimit: number = MAX_PAGE_SIZE): Page {
  const limit = query.integerAtMost('limit', MAX_PAGE_VALUE);
  const offset = query.integerAtMost('offset', MAX_PAGE_VALUE);
  const wanted = limit !== null && limit >= 1 ? limit : (defaultLimit ?? maxLimit);
  return {
    limit: Math.min(wanted, maxLimit),
    offset: offset !== null && offset >= 0 ? offset : 0,
  };
}
