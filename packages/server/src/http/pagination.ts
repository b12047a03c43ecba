/**
 * `limit` / `offset` of the admin listings (docs/api.md 7.2, 7.6), as the document's rules read them at the edge
 * (query-rules.ts; each listing's `limit` states its default and largest page in openapi.json): a limit that
 * is absent, not an integer or below 1 takes the listing's default and is clamped to its largest page; an
 * offset that is absent, not an integer or negative is 0; either above 2 147 483 647 (a PostgreSQL integer) is
 * a 400 naming it. Listings echo the values in `pagination`.
 */
import type { Query } from './query.js';

/** One page of a listing. */
export interface Page {
  limit: number;
  offset: number;
}

/** The page a listing's request asks for (both parameters have defaults in the document). */
export function pageOf(query: Query): Page {
  return { limit: query.number('limit')!, offset: query.number('offset')! };
}
