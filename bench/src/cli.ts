/**
 * Command-line parsing for the benchmark tool.
 *
 * Design: node:util parseArgs with strict option checking; positionals are scenario names, validated
 * against the registry. Every numeric flag is checked here so the scenarios can trust their context.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';

/** The parsed command line. */
export interface CliOptions {
  scenarios: string[];
  url: string | undefined;
  /** A second broker on the same database as --url, for the wake scenario's two-process mode. */
  url2: string | undefined;
  durationS: number;
  runs: number;
  /** QUEEN_WORKERS of the brokers the tool starts (default 1: one process, comparable with older builds). */
  workers: number;
  /** The built checkout whose broker the tool starts (default this one): another commit, measured by this tool. */
  brokerRepo: string | undefined;
  messages: number;
  jsonOnly: boolean;
  group: string | undefined;
  popPartitions: number;
  spread: 'request' | 'item';
  /** The partitions scenario: paced push rate (msgs/s) and partition count. */
  rate: number;
  partitionsCount: number;
  /** Write docs/performance.md from this run's results. */
  writeDoc: boolean;
  /** A remark for the top of docs/performance.md. */
  docNote: string | undefined;
  /** --profile DIR: run the broker under `node --cpu-prof` into DIR and print CPU per stage per request. */
  profileDir: string | undefined;
  help: boolean;
}

/** The usage text; `defaultNames` are the scenarios run when none is named (default: all). */
export function usage(scenarioNames: readonly string[], defaultNames: readonly string[] = scenarioNames,
  families: readonly string[] = []): string {
  const defaults = defaultNames.length === scenarioNames.length ? 'all' : defaultNames.join(' ');
  return [
    'usage: node bench/dist/main.js [scenario ...] [options]',
    '',
    `scenarios: ${scenarioNames.join(' ')} (default: ${defaults}, in this order)`,
    ...(families.length > 0 ? [`families: ${families.join(' ')} (each stands for every scenario named <family>-...)`] : []),
    '       or: node bench/dist/main.js chaos [--messages N] [--kill-every S] [--no-pg-restart] ... (chaos --help)',
    '       or: node bench/dist/main.js failover [--faults kill,switchover,stall] ... (failover --help; needs pg_auto_failover)',
    '       or: node bench/dist/main.js chaos-service [--outage 60] [--rate 400] ... (PostgreSQL outage behind a Service-like balancer, one broker rolled)',
    '',
    'options:',
    '  --url URL             benchmark a running broker (default: start packages/server/dist/main.js)',
    '  --url2 URL            with --url: a second broker on the same database, for wake\'s two-process mode',
    '                        (without --url, wake starts a second broker on the first one\'s database)',
    '  --duration S          seconds of load for push-*, sql-produce (per mode), e2e, fanout, partitions, scale-*, ceiling-push-*,',
    '                        long-lived (default 10)',
    '  --runs N              repeat each scenario N times and also report the median (default 1)',
    '  --workers N           QUEEN_WORKERS of the brokers the tool starts (default 1)',
    '  --broker-repo DIR     start the broker of another built checkout (DIR/packages/server/dist/main.js), so two',
    '                        commits are measured by the same tool (default: this checkout)',
    '  --messages N          messages pre-filled by drain, ceiling-drain and long-lived\'s drains (default 200000)',
    '  --pop-partitions N    partitions claimed per wildcard pop (drain, e2e, fanout, partitions), 0 = no cap (default 0)',
    '  --group NAME          consume as consumer group NAME (default: queue mode)',
    '  --spread request|item rotate partitions per push request (default) or per item',
    '  --rate N              partitions: total paced push rate, msgs/s (default 2000)',
    '  --partitions-count N  partitions: number of partitions (default 10000)',
    '  --write-doc           write docs/performance.md from this run (figures, targets, verdicts, machine, PostgreSQL)',
    '  --doc-note TEXT       with --write-doc: a remark printed at the top of the document',
    '  --profile DIR         run the broker with node --cpu-prof (profile written to DIR) and print its CPU per stage',
    '                        (HTTP, body + JSON, validation, core, store + pg, response, ...) per request and per',
    '                        message over each scenario\'s measured window (push-*, drain, partitions, pop-one-partition)',
    '  --json-only           print only the JSON lines on stdout, no progress or summaries',
    '  -h, --help            this text',
  ].join('\n');
}

function positiveInteger(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`--${name} must be an integer >= ${min} (got ${raw})`);
  return Number(raw);
}

/**
 * Parses argv (without node and script); throws with a readable message on bad input. Without scenario
 * names, `defaultNames` run (default: every scenario); a name in `families` expands to its members.
 */
export function parseCli(argv: readonly string[], scenarioNames: readonly string[],
  defaultNames: readonly string[] = scenarioNames, families: readonly string[] = []): CliOptions {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      url: { type: 'string' },
      url2: { type: 'string' },
      duration: { type: 'string' },
      runs: { type: 'string' },
      workers: { type: 'string' },
      'broker-repo': { type: 'string' },
      messages: { type: 'string' },
      'json-only': { type: 'boolean', default: false },
      group: { type: 'string' },
      'pop-partitions': { type: 'string' },
      spread: { type: 'string' },
      rate: { type: 'string' },
      'partitions-count': { type: 'string' },
      'write-doc': { type: 'boolean', default: false },
      'doc-note': { type: 'string' },
      profile: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  // A family name (e.g. `scale`) stands for every scenario named `<family>-...`, in registry order.
  const expanded = positionals.flatMap((name) => (families.includes(name)
    ? scenarioNames.filter((known) => known.startsWith(`${name}-`)) : [name]));
  const unknown = expanded.filter((name) => !scenarioNames.includes(name));
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')} (known: ${scenarioNames.join(', ')})`);
  const duration = values.duration === undefined ? 10 : Number(values.duration);
  if (!Number.isFinite(duration) || duration <= 0) throw new Error(`--duration must be a positive number (got ${values.duration})`);
  const spread = values.spread ?? 'request';
  if (spread !== 'request' && spread !== 'item') throw new Error(`--spread must be request or item (got ${spread})`);
  if (values['doc-note'] !== undefined && values['write-doc'] !== true) throw new Error('--doc-note needs --write-doc');
  if (values.profile !== undefined && values.url !== undefined) throw new Error('--profile needs the broker the tool starts (no --url)');
  if (values.url !== undefined) new URL(values.url);
  if (values['broker-repo'] !== undefined && values.url !== undefined) throw new Error('--broker-repo names the broker the tool starts (no --url)');
  if (values.url2 !== undefined) {
    if (values.url === undefined) throw new Error('--url2 needs --url (without --url the tool starts both brokers itself)');
    new URL(values.url2);
  }
  return {
    scenarios: expanded.length > 0 ? [...new Set(expanded)] : [...defaultNames],
    url: values.url,
    url2: values.url2,
    durationS: duration,
    runs: positiveInteger('runs', values.runs, 1, 1),
    workers: positiveInteger('workers', values.workers, 1, 1),
    brokerRepo: values['broker-repo'] === undefined ? undefined : path.resolve(values['broker-repo']),
    messages: positiveInteger('messages', values.messages, 200_000, 1),
    jsonOnly: values['json-only'] === true,
    group: values.group,
    popPartitions: positiveInteger('pop-partitions', values['pop-partitions'], 0, 0),
    spread,
    rate: positiveInteger('rate', values.rate, 2000, 1),
    partitionsCount: positiveInteger('partitions-count', values['partitions-count'], 10_000, 1),
    writeDoc: values['write-doc'] === true,
    docNote: values['doc-note'],
    profileDir: values.profile,
    help: values.help === true,
  };
}
