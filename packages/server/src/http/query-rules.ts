/**
 * Query parameters read at the edge from the OpenAPI document (packages/server/openapi.json), compiled once per
 * route when the route table is served (docs/decisions.md, "Query parameters from the document").
 *
 * Query values are text, and the broker reads many of them leniently (docs/api.md 1.6): a limit that is not an
 * integer takes the default, a batch above the largest is clamped, `deleteMetadata=yes` is false. A JSON-schema
 * validator answers yes or no; these rules also say what a value becomes. So each integer or boolean parameter's
 * schema carries `x-queen-query`, which says what happens to a value that is not of the type (`malformed`), below
 * `minimum` (`below`) and above `maximum` (`above`), each one of:
 *   "absent"            the value counts as not sent (the schema's `default` applies)
 *   "clamp"             the value becomes the bound it crossed
 *   "false"             (booleans, `malformed` only) the value reads as false
 *   {"error": text}     a 400 with the text: `{name}`, `{value}` (the value sent, quoted, cut at 40 characters),
 *                       `{minimum}` and `{maximum}` are filled in
 * and, optionally, `ceiling: {"at": n, "error": text}`: a hard bound checked before `minimum`/`maximum` (a page
 * limit is clamped to its maximum, but a value PostgreSQL cannot hold is refused). A schema with
 * `"configured": true` in its `x-queen-query` takes its `default` and `maximum` from the broker's configuration
 * (the document states the shipped ones, which apply when none is given), given by name when the rules are
 * compiled; a configured default is held to the bounds.
 *
 * Integers are an optional sign and decimal digits below 2^53; booleans `true`/`1` and `false`/`0`. String
 * parameters need no rule: `Query.string` reads them (an empty value is absent, a NUL is a 400).
 */
import { invalid } from '../errors.js';
import { integerOf, type Query } from './query.js';

/** What happens to a value that breaks a rule. */
type Outcome = 'absent' | 'clamp' | 'false' | { error: string };

/** The `x-queen-query` extension of a parameter's schema. */
interface QueryRule {
  malformed?: Outcome;
  below?: Outcome;
  above?: Outcome;
  ceiling?: { at: number; error: string };
  configured?: boolean;
}

/** A parameter's schema, as far as the rules read it. */
interface ParameterSchema {
  type?: unknown;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  'x-queen-query'?: QueryRule;
}

/** The parts of the OpenAPI document the rules read. */
export interface QueryDocument {
  paths: Record<string, Record<string, unknown>>;
  components?: { parameters?: Record<string, unknown> };
}

/** The configured default and maximum of a `configured` parameter, by parameter name. */
export type ConfiguredBounds = Record<string, { default?: number; maximum?: number }>;

/** Reads a request's declared integer and boolean parameters into its `Query` (or throws the 400). */
export type QueryCheck = (query: Query) => void;

type Reader = (query: Query) => number | boolean | null;

/** The query readers of one document, per operation. */
export class QueryRules {
  private readonly operations = new Map<string, QueryCheck>();

  constructor(document: QueryDocument, configured: ConfiguredBounds = {}) {
    for (const [template, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const parameters = (operation as { parameters?: unknown[] }).parameters ?? [];
        const names: string[] = [];
        const readers: Reader[] = [];
        for (const entry of parameters) {
          const parameter = resolve(document, entry);
          if (parameter.in !== 'query' || (parameter.schema.type !== 'integer' && parameter.schema.type !== 'boolean')) continue;
          names.push(parameter.name);
          readers.push(reader(parameter.name, parameter.schema, configured));
        }
        if (readers.length === 0) continue;
        this.operations.set(`${method.toUpperCase()} ${template}`, (query) => {
          for (let i = 0; i < readers.length; i++) query.record(names[i]!, readers[i]!(query));
        });
      }
    }
  }

  /** The reader of an operation's parameters, by method and router path (`:name` parameters), or null: none to read. */
  query(method: string, routePath: string): QueryCheck | null {
    return this.operations.get(`${method} ${routePath.replace(/:(\w+)/g, '{$1}')}`) ?? null;
  }
}

/** A parameter object, its `$ref` followed. */
function resolve(document: QueryDocument, entry: unknown): { name: string; in: string; schema: ParameterSchema } {
  const ref = (entry as { $ref?: string }).$ref;
  const parameter = ref === undefined ? entry : document.components?.parameters?.[ref.replace('#/components/parameters/', '')];
  if (parameter === undefined) throw new Error(`unresolved reference ${ref}`);
  return parameter as { name: string; in: string; schema: ParameterSchema };
}

/** The reader of one integer or boolean parameter. */
function reader(name: string, schema: ParameterSchema, configured: ConfiguredBounds): Reader {
  const rule = schema['x-queen-query'];
  if (rule === undefined) throw new Error(`query parameter ${name} (${String(schema.type)}) has no x-queen-query`);
  let fallback = schema.default ?? null;
  let maximum = schema.maximum;
  const bounds = rule.configured === true ? configured[name] : undefined;
  if (bounds !== undefined) {
    maximum = bounds.maximum ?? maximum;
    // A configured default is held to the bounds, as a value sent would be.
    const value = bounds.default ?? (fallback as number | null);
    fallback = value === null ? null : Math.min(Math.max(value, schema.minimum ?? value), maximum ?? value);
  }
  const minimum = schema.minimum;
  const fail = (outcome: Outcome | undefined, value: string): never => {
    if (typeof outcome !== 'object') throw new Error(`query parameter ${name}: no outcome ${JSON.stringify(outcome)} here`);
    throw invalid(fill(outcome.error, { name, value: shown(value), minimum: String(minimum), maximum: String(maximum) }));
  };
  if (schema.type === 'boolean') {
    return (query) => {
      const value = query.string(name);
      if (value === null) return fallback as boolean | null;
      if (value === 'true' || value === '1') return true;
      if (value === 'false' || value === '0') return false;
      return rule.malformed === 'false' ? false : rule.malformed === 'absent' ? fallback as boolean | null : fail(rule.malformed, value);
    };
  }
  return (query) => {
    const value = query.string(name);
    if (value === null) return fallback as number | null;
    const n = integerOf(value);
    if (n === null) return rule.malformed === 'absent' ? fallback as number | null : fail(rule.malformed, value);
    if (rule.ceiling !== undefined && n > rule.ceiling.at) throw invalid(fill(rule.ceiling.error, { name }));
    if (minimum !== undefined && n < minimum) return rule.below === 'clamp' ? minimum : rule.below === 'absent' ? fallback as number | null : fail(rule.below, value);
    if (maximum !== undefined && n > maximum) return rule.above === 'clamp' ? maximum : rule.above === 'absent' ? fallback as number | null : fail(rule.above, value);
    return n;
  };
}

/** A value as an error text quotes it: JSON, cut at 40 characters. */
function shown(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
}
