/**
 * `aggregate({name: extractor})` as a reducer (docs/streams-sdk.md): `count` adds the returned number (1 when it
 * is not a number), `sum` adds numbers, `min`/`max` start null and consider numbers only, `avg` keeps hidden
 * `__avg_sum`/`__avg_count` (they appear in the emit), any other name is a running total.
 */
import type { Reducer } from './window-reduce.js';

type Extractor = (value: unknown) => unknown;

/** The reducer of an aggregate spec, and its field names in order (for config_hash). */
export function aggregateReducer(spec: unknown): Reducer & { fields: string[] } {
  if (spec === null || typeof spec !== 'object') throw new Error('aggregate requires an object of named extractors');
  const fields = Object.entries(spec as Record<string, unknown>).map(([name, fn]) => {
    if (typeof fn !== 'function') throw new Error(`aggregate.${name} must be a function`);
    return { name, fn: fn as Extractor };
  });
  if (fields.length === 0) throw new Error('aggregate requires at least one extractor');
  const initial = (): Record<string, unknown> => {
    const acc: Record<string, unknown> = {};
    for (const { name } of fields) {
      if (name === 'min' || name === 'max') acc[name] = null;
      else if (name === 'avg') Object.assign(acc, { __avg_sum: 0, __avg_count: 0, avg: 0 });
      else acc[name] = 0;
    }
    return acc;
  };
  const fold = async (accIn: unknown, value: unknown): Promise<Record<string, unknown>> => {
    const acc = { ...(accIn as Record<string, unknown>) };
    const num = (k: string) => (typeof acc[k] === 'number' ? (acc[k] as number) : 0);
    for (const { name, fn } of fields) {
      const v = await fn(value);
      const isNum = typeof v === 'number';
      if (name === 'count') acc.count = num('count') + (isNum ? v : 1);
      else if (name === 'min' || name === 'max') {
        if (isNum) acc[name] = typeof acc[name] === 'number' ? (name === 'min' ? Math.min : Math.max)(acc[name] as number, v) : v;
      } else if (name === 'avg') {
        if (isNum) {
          acc.__avg_sum = num('__avg_sum') + v;
          acc.__avg_count = num('__avg_count') + 1;
          acc.avg = (acc.__avg_sum as number) / (acc.__avg_count as number);
        }
      } else acc[name] = num(name) + (isNum ? v : 0);
    }
    return acc;
  };
  return { fields: fields.map((f) => f.name), initial, fold };
}

/** The reducer of `reduce(fn, initial)`: `initial` is deep-cloned for every window. */
export function foldReducer(fn: (acc: unknown, value: unknown) => unknown, initial: unknown): Reducer {
  return { fold: fn, initial: () => (initial === null || typeof initial !== 'object' ? initial : (JSON.parse(JSON.stringify(initial)) as unknown)) };
}
