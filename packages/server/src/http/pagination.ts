/**
 * `limit` / `offset` of the admin listings (API.md 7.2, 7.6). A limit that is absent, not an integer or
 * below 1 takes the route's default (null: no limit) and is clamped to the route's maximum, if it has one;
 * an offset that is absent, not an integer or negative is 0. Either above 2 147 483 647 (a PostgreSQL
 * integer) is a 400 naming it. Listings echo the values in `pagination`.
 */
import type { Query } from './query.js';

const MAX_PAGE_VALUE = 2_147_483_647;

/** One page of a listing. */
export interface Page<L extends number | null = number | null> {
  limit: L;
  offset: number;
}

/** Reads `limit` and `offset`. */
export function pageOf<L extends number | null>(query: Query, defaultLimit: L, maxLimit: number | null = null): Page<number | L> {
  const limit = query.integerAtMost('limit', MAX_PAGE_VALUE);
  const offset = query.integerAtMost('offset', MAX_PAGE_VALUE);
  const wanted = limit !== null && limit >= 1 ? limit : defaultLimit;
  return {
    limit: wanted !== null && maxLimit !== null ? Math.min(wanted, maxLimit) : wanted,
    offset: offset !== null && offset >= 0 ? offset : 0,
  };
}
