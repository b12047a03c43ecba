/**
 * The jsonpath subset of docs/cli.md: `.key`, `[index]`, chained, leading `.` optional, `.` = everything.
 * Applied to the whole body. A path that does not resolve is a user error (exit 1).
 */
import { userError } from './errors.js';

type Step = { key: string } | { index: number };

/** Parses an expression into steps; exit 1 when malformed. */
export function parsePath(expr: string): Step[] {
  const text = expr.trim();
  if (text === '' || text === '.') return [];
  const steps: Step[] = [];
  const re = /\.?([A-Za-z0-9_$@-][^.[\]]*)|\[(\d+)\]|\["([^"]*)"\]/gy;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < text.length && (m = re.exec(text)) !== null) {
    if (m[2] !== undefined) steps.push({ index: Number(m[2]) });
    else steps.push({ key: m[1] ?? m[3] ?? '' });
    at = re.lastIndex;
  }
  if (at !== text.length) throw userError(`invalid jsonpath "${expr}" at position ${at + 1} (use .key, [index], chained: .queues[0].name)`);
  return steps;
}

/** Evaluates `expr` against `body`; exit 1 when a step does not exist. */
export function evaluate(body: unknown, expr: string): unknown {
  let value: unknown = body;
  let where = '';
  for (const step of parsePath(expr)) {
    if ('index' in step) {
      where += `[${step.index}]`;
      if (!Array.isArray(value) || step.index >= value.length) throw userError(`jsonpath ${where}: no such element`);
      value = value[step.index];
    } else {
      where += `.${step.key}`;
      if (value === null || typeof value !== 'object' || Array.isArray(value) || !(step.key in value)) throw userError(`jsonpath ${where}: no such key`);
      value = (value as Record<string, unknown>)[step.key];
    }
  }
  return value;
}

/** How a jsonpath result prints: scalars bare, null as an empty line, objects and arrays as pretty JSON. */
export function formatResult(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value, null, 2);
}
