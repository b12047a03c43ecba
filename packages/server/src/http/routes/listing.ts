/** Time-window parameters of the message and DLQ listings (docs/api.md 7.4, 7.5). */
import { parseTimestamp } from '../../core/timestamps.js';
import type { Query } from '../query.js';

/** A timestamp bound (docs/api.md 1.8); a value that is not a timestamp counts as absent. */
export function timestampParam(query: Query, key: string): string | null {
  const raw = query.string(key);
  return raw === null ? null : parseTimestamp(raw);
}
