/**
 * The readers of configuration values: each takes the environment it is given (config.ts passes
 * process.env), parses one variable and throws a ConfigError naming it when the value is out of range.
 */

/** Thrown when a variable is set to a value outside its allowed range. */
export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export function text(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = /^[+-]?\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max} (got ${raw})`);
  }
  return value;
}

export function decimal(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = raw.trim() === '' ? NaN : Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a number between ${min} and ${max} (got ${raw})`);
  }
  return value;
}

/** A timeout variable that counts as unset unless it is a non-negative integer (docs/api.md 5.2); a malformed one is reported in `warnings`. */
export function optionalTimeout(env: Env, name: string, warnings: string[]): number | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  if (/^\d+$/.test(raw.trim()) && Number.isSafeInteger(Number(raw.trim()))) return Number(raw.trim());
  warnings.push(`${name} is not a non-negative integer (got ${raw}): ignored, as if unset`);
  return undefined;
}

/** A boolean variable: true/1 or false/0 (any case); anything else stops the start-up. */
export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name)?.trim().toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false (got ${text(env, name)})`);
}

/** Parses CORS_ORIGINS: comma-separated origins (`scheme://host[:port]`) or `*`; returns the problem or the list. */
export function parseCorsOrigins(raw: string | undefined): string[] | { invalid: string } {
  const list = (raw ?? '').split(',').map((s) => s.trim().replace(/\/+$/, '')).filter((s) => s !== '');
  for (const origin of list) {
    if (origin === '*') continue;
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      return { invalid: origin };
    }
    if (parsed.origin !== origin.toLowerCase()) return { invalid: origin };
  }
  return list.map((o) => (o === '*' ? o : o.toLowerCase()));
}
