/**
 * The layers of packages/server/src (CONTRIBUTING.md "Layout"): every module belongs to one, and imports
 * only from its own layer group or from lower layers. The test reads the import specifiers of every .ts file
 * (static imports and re-exports, type-only ones included, and `import('...')` types) and fails on an
 * import that runs up, or on a module that belongs to no layer (a new top-level file must be placed here).
 *
 * Lowest first:
 *   0 foundation   config*, errors, logger, ids, database-address, tracing: no imports from any layer above
 *   1 store/       the only code that talks to PostgreSQL;   auth/  JWT, roles (beside the store: no database)
 *   2 core/        push, pop, ack, transactions, streams, catalog: reaches the database through the Store
 *   3 buffer/      the failover buffer;   metrics/  in-memory counters, Prometheus families
 *   4 services/    background services (heartbeat, stats flush, retention, maintenance flags)
 *   5 http/        parsing, routes: core services only, never store/ (the second rule below)
 *   6 boot/        the start-up steps: build the store and hand it to core, services and routes
 *   7 entry        broker.ts (the list of steps), main.ts, index.ts, ready-line.ts
 * Two groups on the same level (store and auth, buffer and metrics) do not import each other.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

const FOUNDATION = ['config.ts', 'config-database.ts', 'config-tracing.ts', 'tracing.ts', 'config-values.ts', 'database-address.ts', 'errors.ts', 'logger.ts', 'ids.ts'];
const ENTRY = ['broker.ts', 'main.ts', 'index.ts', 'ready-line.ts'];

/** Each group and its level; a module imports from its own group or a group of a lower level. */
const GROUPS: Record<string, number> = {
  foundation: 0, store: 1, auth: 1, core: 2, buffer: 3, metrics: 3, services: 4, http: 5, boot: 6, entry: 7,
};

/** The group of a module (a path relative to src/, with forward slashes), or null when it belongs to none. */
function groupOf(module: string): string | null {
  const slash = module.indexOf('/');
  if (slash === -1) return FOUNDATION.includes(module) ? 'foundation' : ENTRY.includes(module) ? 'entry' : null;
  const dir = module.slice(0, slash);
  return dir in GROUPS ? dir : null;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

/** The modules (relative to src/) that `file` imports from inside src/. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[1]!;
    if (!specifier.startsWith('.')) continue;
    const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');
    found.push(path.relative(SRC, target).split(path.sep).join('/'));
  }
  return found;
}

const modules = sourceFiles(SRC).map((file) => ({ module: path.relative(SRC, file).split(path.sep).join('/'), imports: importsOf(file) }));

test('the import reader sees the imports it must judge (the check below is not vacuous)', () => {
  const pop = modules.find((m) => m.module === 'core/pop.ts');
  assert.ok(pop !== undefined && pop.imports.includes('store/cursors.ts') && pop.imports.includes('store/index.ts'));
  const broker = modules.find((m) => m.module === 'broker.ts')!;
  assert.ok(broker.imports.includes('boot/serve.ts'));
  assert.ok(modules.length > 100, `${modules.length} modules`);
});

test('every module belongs to a layer', () => {
  assert.deepEqual(modules.map((m) => m.module).filter((m) => groupOf(m) === null), []);
});

test('no module imports from a higher layer, or from another group of its own level', () => {
  const violations: string[] = [];
  for (const { module, imports } of modules) {
    const from = groupOf(module)!;
    for (const target of imports) {
      const to = groupOf(target);
      if (to === null) violations.push(`${module} -> ${target} (outside src/ or in no layer)`);
      else if (to !== from && GROUPS[to]! >= GROUPS[from]!) violations.push(`${module} (${from}) -> ${target} (${to})`);
    }
  }
  assert.deepEqual(violations, []);
});

test('routes and the HTTP layer reach the database only through core (no store/ import)', () => {
  const violations = modules.filter((m) => m.module.startsWith('http/')).flatMap((m) =>
    m.imports.filter((target) => target.startsWith('store/')).map((target) => `${m.module} -> ${target}`));
  assert.deepEqual(violations, []);
});

/** The layers below http/ that must know nothing of the transport (boot/ wires http/ and sits above it). */
const TRANSPORT_FREE = new Set(['store', 'auth', 'core', 'buffer', 'metrics', 'services']);

/** A module's code without its comments (a comment may cite docs/api.md's routes and statuses). */
function codeOf(module: string): string {
  const text = fs.readFileSync(path.join(SRC, module), 'utf8');
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** What only http/ may say: its error type, a route path, or an HTTP status (the ones docs/api.md answers). */
const TRANSPORT_WORDS: Array<[string, RegExp]> = [
  ['HttpError', /\bHttpError\b/],
  ['an /api/v1 path', /\/api\/v1\b/],
  ['an HTTP error status', /\b(?:400|401|403|404|409|413|429|499|500|502|503|504)\b/],
  ['statusCode', /\bstatusCode\b/],
  ['node:http', /['"]node:https?['"]/],
];

test('below http/ no module speaks HTTP: domain errors (errors.ts) only, no status, HttpError or /api/v1 path', () => {
  const checked = modules.filter((m) => m.module === 'errors.ts' || TRANSPORT_FREE.has(groupOf(m.module)!));
  assert.ok(checked.length > 60, `${checked.length} modules checked`);
  const violations = checked.flatMap(({ module }) =>
    codeOf(module).split('\n').flatMap((line, i) =>
      TRANSPORT_WORDS.filter(([, pattern]) => pattern.test(line)).map(([what]) => `${module}:${i + 1}: ${what}: ${line.trim()}`)));
  assert.deepEqual(violations, []);
});

test('the transport check sees what it must refuse (it is not vacuous)', () => {
  const http = modules.filter((m) => m.module.startsWith('http/')).map((m) => codeOf(m.module)).join('\n');
  for (const [what, pattern] of TRANSPORT_WORDS.slice(0, 3)) assert.ok(pattern.test(http), `http/ has ${what}`);
});
