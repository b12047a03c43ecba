/**
 * Query strings (docs/api.md 1.6): form-urlencoded, first occurrence of a key wins, an empty value counts as
 * absent, a malformed escape is an error the caller turns into its route's 400. A value PostgreSQL cannot
 * store (a NUL) is refused when a route reads it (text.ts); an integer outside the range a route documents
 * is a 400 naming the parameter (docs/configuration.md, "Request parameters").
 */
import { InvalidInput } from '../errors.js';
import { isStorableText } from '../core/names.js';
import { InvalidText } from './text.js';

/** Raised for a malformed percent-escape in the path or the query. */
export class MalformedEncoding extends InvalidInput {
  constructor() {
    super('Malformed URL encoding');
  }
}

/** Decodes one path segment: percent-escapes as UTF-8, `+` stays a plus. */
export function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new MalformedEncoding();
  }
}

/** Raised for an integer parameter above its documented ceiling. */
export class OutOfRange extends InvalidInput {
  constructor(key: string, max: number) {
    super(`Invalid ${key}: must be an integer of at most ${max}`);
  }
}

/** Raised for a parameter whose value cannot mean anything: names it, what it accepts, and what came. */
export class InvalidParameter extends InvalidInput {
  constructor(key: string, accepted: string, value: string) {
    const shown = value.length > 40 ? `${value.slice(0, 40)}...` : value;
    super(`Invalid ${key}: must be ${accepted} (got ${JSON.stringify(shown)})`);
  }
}

/** The parsed query of one request, with typed accessors. */
export class Query {
  private constructor(private readonly values: Map<string, string>) {}

  /** Parses the part of a URL after `?`. */
  static parse(search: string): Query {
    const values = new Map<string, string>();
    if (search.length === 0) return new Query(values);
    for (const pair of search.split('&')) {
      if (pair.length === 0) continue;
      const eq = pair.indexOf('=');
      const rawKey = eq === -1 ? pair : pair.slice(0, eq);
      const rawValue = eq === -1 ? '' : pair.slice(eq + 1);
      const key = decodeFormComponent(rawKey);
      const value = decodeFormComponent(rawValue);
      if (!values.has(key)) values.set(key, value);
    }
    return new Query(values);
  }

  /** The value of a key, or null when absent or empty. */
  string(key: string): string | null {
    const value = this.values.get(key);
    if (value === undefined || value === '') return null;
    if (!isStorableText(value)) throw new InvalidText(key);
    return value;
  }

  /** An integer (optional sign, decimal digits, magnitude below 2^53), or null when absent or not one. */
  integer(key: string): number | null {
    const value = this.string(key);
    if (value === null || !/^[+-]?\d+$/.test(value)) return null;
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : null;
  }

  /**
   * An integer as `integer()` reads it, at most `max` (the parameters' floors are semantic: "0 or less means
   * ..."): above, a 400 `Invalid <key>: must be an integer of at most <max>` (the pop routes answer it in
   * their shape).
   */
  integerAtMost(key: string, max: number): number | null {
    const n = this.integer(key);
    if (n !== null && n > max) throw new OutOfRange(key, max);
    return n;
  }

  /**
   * An integer of at least `min`, or null when absent; a value that is not an integer, or is below `min`, is a
   * 400 naming the key and `accepted` (the route's words for its range). Ceilings stay the caller's (a clamp).
   */
  integerFrom(key: string, min: number, accepted: string): number | null {
    const value = this.string(key);
    if (value === null) return null;
    const n = this.integer(key);
    if (n === null || n < min) throw new InvalidParameter(key, accepted, value);
    return n;
  }

  /** A strict boolean: `true`/`1` true, `false`/`0` false, null when absent; anything else a 400 naming the key. */
  flag(key: string): boolean | null {
    const value = this.string(key);
    if (value === null) return null;
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    throw new InvalidParameter(key, 'true or false (or 1 or 0)', value);
  }

  /** `true`/`1` are true, any other non-empty value false; null when absent. */
  boolean(key: string): boolean | null {
    const value = this.string(key);
    if (value === null) return null;
    return value === 'true' || value === '1';
  }
}

function decodeFormComponent(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw new MalformedEncoding();
  }
}
