/** Timestamp input (docs/api.md 1.8): ISO-8601 with Z or an offset, UTC when none, up to microseconds. */

const ISO_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Parses an ISO-8601 timestamp into a string PostgreSQL reads unambiguously (explicit offset, fraction kept
 * to the microsecond), or null when the text is not a valid timestamp.
 */
export function parseTimestamp(text: string): string | null {
  const m = ISO_PATTERN.exec(text.trim());
  if (m === null) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) =>
    v === undefined ? undefined : Number(v),
  ) as number[];
  const probe = new Date(Date.UTC(year!, month! - 1, day!, hour, minute, second));
  if (
    probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month! - 1 || probe.getUTCDate() !== day ||
    hour > 23 || minute > 59 || second > 59
  ) {
    return null;
  }
  const zoneMatch = /^[+-](\d{2}):?(\d{2})?$/.exec(m[8] ?? '');
  // PostgreSQL accepts offsets up to 15:59.
  if (zoneMatch !== null && (Number(zoneMatch[1]) > 15 || Number(zoneMatch[2] ?? 0) > 59)) return null;
  const fraction = (m[7] ?? '').slice(0, 6).padEnd(6, '0');
  let zone = m[8] ?? 'Z';
  if (zone === 'Z' || zone === 'z') zone = '+00:00';
  else if (/^[+-]\d{2}$/.test(zone)) zone = `${zone}:00`;
  else if (/^[+-]\d{4}$/.test(zone)) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  return `${pad(year!, 4)}-${pad(month!)}-${pad(day!)}T${pad(hour)}:${pad(minute)}:${pad(second)}.${fraction}${zone}`;
}
