/**
 * The chaos command line: `node bench/dist/main.js chaos [--messages N] [--kill-every S] [--no-pg-restart]
 * [--producers N] [--consumers N] [--drop-acks P] [--json-only]`.
 */
import { parseArgs } from 'node:util';

/** The parsed chaos options. */
export interface ChaosOptions {
  messages: number;
  /** Seconds between broker kills; 0 = no kills. */
  killEveryS: number;
  pgRestart: boolean;
  producers: number;
  consumers: number;
  /** Percent of popped batches whose ack the consumers deliberately never send (0..100). */
  dropAcksPercent: number;
  jsonOnly: boolean;
  help: boolean;
}

/** The chaos usage text. */
export function chaosUsage(): string {
  return [
    'usage: node bench/dist/main.js chaos [options]',
    '',
    'Two brokers on one PostgreSQL under load while the harness SIGKILLs one of them every --kill-every seconds',
    '(alternating, restarted on the same port after 1 s) and restarts PostgreSQL once mid-run. Producers retry',
    'every failed push with the same transactionIds; the checker then requires 0 lost and 0 skipped messages and',
    'explains every duplicate delivery. Exit code 1 when any check fails.',
    '',
    'options:',
    '  --messages N      messages to push in total (default 1000000)',
    '  --kill-every S    seconds between broker kills, 0 = none (default 10)',
    '  --no-pg-restart   do not restart PostgreSQL mid-run (never restarted when PG_HOST/DATABASE_URL is set)',
    '  --producers N     concurrent producers, batch 10 (default 16)',
    '  --consumers N     concurrent consumers, batch 100 (default 8)',
    '  --drop-acks P     never send the ack of P percent of popped batches (default 0): their messages come',
    '                    back after the lease, which exercises the duplicate classification',
    '  --json-only       print only the JSON lines on stdout',
    '  -h, --help        this text',
  ].join('\n');
}

function integer(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`--${name} must be an integer >= ${min} (got ${raw})`);
  return Number(raw);
}

/** Parses the arguments after `chaos`; throws with a readable message on bad input. */
export function parseChaosOptions(argv: readonly string[]): ChaosOptions {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      messages: { type: 'string' },
      'kill-every': { type: 'string' },
      'no-pg-restart': { type: 'boolean', default: false },
      producers: { type: 'string' },
      consumers: { type: 'string' },
      'drop-acks': { type: 'string' },
      'json-only': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (positionals.length > 0) throw new Error(`chaos runs alone (unexpected: ${positionals.join(' ')})`);
  const killEvery = values['kill-every'] === undefined ? 10 : Number(values['kill-every']);
  if (!Number.isFinite(killEvery) || killEvery < 0) throw new Error(`--kill-every must be a number >= 0 (got ${values['kill-every']})`);
  if (killEvery > 0 && killEvery < 3) throw new Error('--kill-every must be at least 3 s (a killed broker needs time to come back)');
  const dropAcks = values['drop-acks'] === undefined ? 0 : Number(values['drop-acks']);
  if (!Number.isFinite(dropAcks) || dropAcks < 0 || dropAcks > 100) {
    throw new Error(`--drop-acks must be a percentage between 0 and 100 (got ${values['drop-acks']})`);
  }
  return {
    messages: integer('messages', values.messages, 1_000_000, 1),
    killEveryS: killEvery,
    pgRestart: values['no-pg-restart'] !== true,
    producers: integer('producers', values.producers, 16, 1),
    consumers: integer('consumers', values.consumers, 8, 1),
    dropAcksPercent: dropAcks,
    jsonOnly: values['json-only'] === true,
    help: values.help === true,
  };
}
