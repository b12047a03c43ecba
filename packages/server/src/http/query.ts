/**
 * Query strings (docs/api.md 1.6): form-urlencoded, first occurrence of a key wins, an empty value counts as
 * absent, a malformed escape is an error the caller turns into its route's 400. A value PostgreSQL cannot
 * store (a NUL) is refused when a route reads it (text.ts). Integer and boolean parameters are read by the
 * rules of the document (query-rules.ts) before the route runs; the route takes their values with `number()` and
 * `bool()`.
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

/** The parsed query of one request, with typed accessors. */
export class Query {
  /** The declared integer and boolean parameters, as read by the route's rules. */
  private read: Record<string, number | boolean | null> | null = null;

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
    return value === null ? null : integerOf(value);
  }

  /**
   * The value of a declared integer parameter as the document's rules read it (query-rules.ts: defaults,
   * clamps, 400s), or null. Reading one the route's operation does not declare is a bug, not a 400.
   */
  number(key: string): number | null {
    const value = this.checked(key);
    if (value !== null && typeof value !== 'number') throw new Error(`query parameter ${key} is not an integer`);
    return value;
  }

  /** The value of a declared boolean parameter as the document's rules read it, or null (see `number`). */
  bool(key: string): boolean | null {
    const value = this.checked(key);
    if (value !== null && typeof value !== 'boolean') throw new Error(`query parameter ${key} is not a boolean`);
    return value;
  }

  /** Records a parameter's value as read by the route's rules (query-rules.ts). */
  record(key: string, value: number | boolean | null): void {
    (this.read ??= {})[key] = value;
  }

  private checked(key: string): number | boolean | null {
    const value = this.read?.[key];
    if (value === undefined) throw new Error(`query parameter ${key} is not declared for this route in openapi.json`);
    return value;
  }
}

/** A query value as an integer (optional sign, decimal digits, magnitude below 2^53), or null when it is not one. */
export function integerOf(value: string): number | null {
  if (!/^[+-]?\d+$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

function decodeFormComponent(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw new MalformedEncoding();
  }
}
