/**
 * Output (docs/cli.md). A command hands `print()` the broker's body and a {@link View} (its rows and columns);
 * the format decides the rest: `table`/`wide` render columns (JSON or, for describe-style commands, YAML when a
 * command has none), `json`/`yaml`/`ndjson` print the rows when the view declares them, else the whole body,
 * `jsonpath=` evaluates on what `json` prints, `raw` prints strings verbatim. Default: table on a TTY, json when piped.
 * yaml and cli-table3 are loaded only when a format needs them (start-up time).
 */
import type { Writable } from 'node:stream';
import { CliError, userError } from './errors.js';
import { evaluate, formatResult } from './jsonpath.js';
import { humanSeconds, relativeTime } from './time.js';

/** A parsed `-o` value. */
export type Format = { kind: 'table' | 'wide' | 'json' | 'ndjson' | 'yaml' | 'raw' } | { kind: 'jsonpath'; expr: string };

/** How a cell is shown in tables. */
export type CellKind = 'text' | 'count' | 'seconds' | 'time';

/** One table column of rows of type `R` (a broker row type of the SDK's API layer, or a command's own row). */
export interface Column<R> {
  header: string;
  value: (row: R) => unknown;
  kind?: CellKind;
  wide?: boolean;
}

/** What a command's body of type `B` looks like to the renderers; `R` is the type of its rows. */
export interface View<B, R = never> {
  /** The row list inside the body (json/yaml/ndjson print it instead of the body). */
  rows?: (body: B) => readonly R[];
  columns?: readonly Column<R>[];
  /** Describe-style: table formats fall back to YAML rather than JSON. */
  describe?: boolean;
}

/** Parses `-o`; exit 1 on an unknown format. */
export function parseFormat(text: string): Format {
  const t = text.trim();
  const jp = /^(?:jsonpath|json-path)=(.*)$/s.exec(t);
  if (jp) return { kind: 'jsonpath', expr: jp[1]! };
  if (t === 'jsonl') return { kind: 'ndjson' };
  if (t === 'table' || t === 'wide' || t === 'json' || t === 'ndjson' || t === 'yaml' || t === 'raw') return { kind: t };
  throw userError(`unknown output format "${text}" (use table, wide, json, ndjson, yaml, raw or jsonpath=<expr>)`);
}

/** Whether colour is on: `--color`/`--no-color`, then CLICOLOR_FORCE, NO_COLOR, CLICOLOR=0, then a TTY. */
export function colourEnabled(flag: boolean | undefined, env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  if (flag !== undefined) return flag;
  if (env.CLICOLOR_FORCE && env.CLICOLOR_FORCE !== '0') return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.CLICOLOR === '0') return false;
  return isTTY;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

/** The text of one table cell (docs/cli.md rules). */
export function cell(value: unknown, kind: CellKind = 'text', now = Date.now()): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : String(value.length);
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    return keys.length === 0 ? '-' : `{${keys.join(',')}}`;
  }
  if (typeof value === 'number') {
    if (kind === 'seconds') return humanSeconds(value);
    return Number.isInteger(value) ? value.toLocaleString('en-US') : String(Math.round(value * 100) / 100);
  }
  if (typeof value === 'string') {
    if ((kind === 'time' || RFC3339.test(value)) && !Number.isNaN(Date.parse(value))) return relativeTime(new Date(value), now);
    if (kind === 'count' && /^\d+$/.test(value)) return Number(value).toLocaleString('en-US');
    return value.replace(/[\r\n\t]+/g, ' ');
  }
  return String(value);
}

/** Renders rows as a borderless table: 2-space gaps, upper-case headers (bold with colour), no trailing blanks. */
export async function renderTable<R>(rows: readonly R[], columns: readonly Column<R>[], options: { headers: boolean; colour: boolean; now?: number }): Promise<string> {
  const { default: Table } = await import('cli-table3');
  const blank = { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' };
  const table = new Table({ chars: blank, style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true } });
  if (options.headers) {
    const bold = options.colour ? (await import('picocolors')).default.createColors(true).bold : (s: string) => s;
    table.push(columns.map((c) => bold(c.header.toUpperCase())));
  }
  for (const row of rows) table.push(columns.map((c) => cell(c.value(row), c.kind, options.now)));
  if (table.length === 0) return '';
  return `${table.toString().split('\n').map((l) => l.trimEnd()).join('\n')}\n`;
}

/** Output settings and helpers shared by every command. */
export class Output {
  constructor(
    readonly format: Format,
    /** True when `-o` was given (one-liner commands then print their response). */
    readonly explicit: boolean,
    readonly colour: boolean,
    readonly headers: boolean,
    readonly quiet: boolean,
    readonly stdout: Writable = process.stdout,
    readonly stderr: Writable = process.stderr,
  ) {}

  /** Prints a body through a view in the selected format. */
  async print<B, R = never>(body: B, view: View<B, R> = {}): Promise<void> {
    const f = this.format;
    const rows = view.rows ? view.rows(body) : undefined;
    switch (f.kind) {
      case 'jsonpath':
        // On the shape `-o json` prints (the rows when the view has them), so a path read off `-o json` works.
        this.write(`${formatResult(evaluate(rows ?? body, f.expr))}\n`);
        return;
      case 'json':
        this.write(`${JSON.stringify(rows ?? body, null, 2)}\n`);
        return;
      case 'ndjson':
        for (const row of rows ?? (Array.isArray(body) ? body : [body])) this.write(`${JSON.stringify(row)}\n`);
        return;
      case 'yaml':
        this.write(await toYaml(rows ?? body));
        return;
      case 'raw':
        this.write(typeof body === 'string' ? body : `${JSON.stringify(body)}\n`);
        return;
      default: {
        if (!view.columns || !rows) {
          this.write(view.describe ? await toYaml(body) : `${JSON.stringify(body, null, 2)}\n`);
          return;
        }
        const columns = f.kind === 'wide' ? view.columns : view.columns.filter((c) => !c.wide);
        this.write(await renderTable(rows, columns, { headers: this.headers, colour: this.colour }));
      }
    }
  }

  /** A success one-liner (suppressed by -q). */
  done(line: string): void {
    if (!this.quiet) this.write(`${line}\n`);
  }

  /** Prints a one-liner, or with an explicit `-o` the response instead. */
  async result(line: string, body: unknown): Promise<void> {
    if (this.explicit) await this.print(body);
    else this.done(line);
  }

  /** A warning on stderr (never suppressed: warnings matter). */
  warn(message: string): void {
    const text = `queenctl: warning: ${message}\n`;
    this.stderr.write(this.colour ? `\u001b[33m${text}\u001b[39m` : text);
  }

  /** Writes text to stdout. */
  write(text: string): void {
    this.stdout.write(text);
  }

  /** Bold text when colour is on (headers, summaries). */
  bold(text: string): string {
    return this.colour ? `\u001b[1m${text}\u001b[22m` : text;
  }
}

/** The yaml package, loaded on demand (in the bundle a CommonJS module arrives as `default`). */
export async function loadYaml(): Promise<typeof import('yaml')> {
  const mod = (await import('yaml')) as typeof import('yaml') & { default?: typeof import('yaml') };
  return mod.default ?? mod;
}

/** YAML of a value. */
export async function toYaml(value: unknown): Promise<string> {
  return (await loadYaml()).stringify(value ?? null, { lineWidth: 0 });
}

/** The element type of an array type (`never` for anything else). */
export type ElementOf<T> = T extends readonly (infer E)[] ? E : never;

/**
 * Reads a body field that must be an array (or the body itself without `key`); a broker answer without it is a
 * server error. The element type is the one the SDK's API layer declares for that field.
 */
export function arrayAt<B>(body: B): ElementOf<B>[];
export function arrayAt<B, K extends keyof B>(body: B, key: K): ElementOf<B[K]>[];
export function arrayAt(body: unknown, key?: PropertyKey): unknown[] {
  const value = key === undefined ? body : (body as Record<PropertyKey, unknown> | null)?.[key];
  if (!Array.isArray(value)) throw new CliError(`unexpected answer from the server: ${String(key ?? 'body')} is not a list`, 2);
  return value;
}
