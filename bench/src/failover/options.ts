/**
 * The failover command line: `node bench/dist/main.js failover [--faults kill,switchover,stall]
 * [--stall-seconds S] [--before S] [--after S] [--producers N] [--consumers N] [--rate N] [--no-rejoin] [--json-only]`.
 */
import { parseArgs } from 'node:util';

/** The faults the harness can inject into the primary. */
export const FAULTS = ['kill', 'switchover', 'stall'] as const;

/** One fault. */
export type Fault = (typeof FAULTS)[number];

/** The parsed failover options. */
export interface FailoverOptions {
  faults: Fault[];
  /** How long `stall` keeps the primary stopped (s). */
  stallS: number;
  /** Seconds of steady load before each fault. */
  beforeS: number;
  /** Seconds of load after the engine's promotion before producers stop. */
  afterS: number;
  producers: number;
  consumers: number;
  /** Messages per second over all producers (0: as fast as they can). */
  rate: number;
  /** Bring a killed primary back as the new standby (needed before another fault). */
  rejoin: boolean;
  jsonOnly: boolean;
  help: boolean;
}

/** The failover usage text. */
export function failoverUsage(): string {
  return [
    'usage: node bench/dist/main.js failover [options]',
    '',
    'Starts a pg_auto_failover cluster (monitor, primary, synchronous standby; needs the Debian packages',
    'postgresql-15-auto-failover and pg-auto-failover-cli), two brokers on its multi-host URL and producers and',
    'consumers written with @queen/client, then injects each fault into the primary under load, one after the',
    'other, and reports per fault: messages lost, duplicates, reorders, the engine\'s promotion time, the seconds',
    'from the fault to the first committed push and the first served pop, and the client-visible errors.',
    'Exit code 1 when a message is lost or reordered, or a duplicate is not explained by an unacked lease.',
    '',
    'faults:',
    '  kill        SIGKILL to the primary node\'s keeper, postmaster and backends; the monitor promotes the standby',
    '  switchover  pg_autoctl perform switchover',
    '  stall       SIGSTOP to the primary node\'s keeper, postmaster and backends (a partitioned node), SIGCONT',
    '              after --stall-seconds; the monitor promotes the standby meanwhile',
    '',
    'options:',
    '  --faults LIST       comma-separated faults, in order (default kill,switchover,stall)',
    '  --stall-seconds S   how long stall stops the primary (default 30)',
    '  --before S          seconds of load before each fault (default 10)',
    '  --after S           seconds of load after the promotion (default 15)',
    '  --producers N       producers, batch 10 (default 8)',
    '  --rate N            messages per second over all producers, 0 = unpaced (default 500): during an outage the',
    '                      brokers buffer pushes faster than they replay them, so an unpaced run ends with a long drain',
    '  --consumers N       consumers, batch 50 (default 4)',
    '  --no-rejoin         do not bring a failed primary back as the standby (only for a single fault)',
    '  --json-only         print only the JSON lines on stdout',
    '  -h, --help          this text',
  ].join('\n');
}

function number(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || value < min) throw new Error(`--${name} must be a number >= ${min} (got ${raw})`);
  return value;
}

/** Parses the arguments after `failover`; throws with a readable message on bad input. */
export function parseFailoverOptions(argv: readonly string[]): FailoverOptions {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      faults: { type: 'string' },
      'stall-seconds': { type: 'string' },
      before: { type: 'string' },
      after: { type: 'string' },
      producers: { type: 'string' },
      consumers: { type: 'string' },
      rate: { type: 'string' },
      'no-rejoin': { type: 'boolean', default: false },
      'json-only': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (positionals.length > 0) throw new Error(`failover runs alone (unexpected: ${positionals.join(' ')})`);
  const faults = (values.faults ?? FAULTS.join(',')).split(',').map((f) => f.trim()).filter((f) => f !== '');
  for (const fault of faults) {
    if (!(FAULTS as readonly string[]).includes(fault)) throw new Error(`unknown fault ${fault} (known: ${FAULTS.join(', ')})`);
  }
  if (faults.length === 0) throw new Error('--faults names no fault');
  const rejoin = values['no-rejoin'] !== true;
  if (!rejoin && faults.length > 1) throw new Error('--no-rejoin leaves no standby for a second fault: give one fault');
  return {
    faults: faults as Fault[],
    stallS: number('stall-seconds', values['stall-seconds'], 30, 1),
    beforeS: number('before', values.before, 10, 1),
    afterS: number('after', values.after, 15, 1),
    producers: number('producers', values.producers, 8, 1),
    consumers: number('consumers', values.consumers, 4, 1),
    rate: number('rate', values.rate, 500, 0),
    rejoin,
    jsonOnly: values['json-only'] === true,
    help: values.help === true,
  };
}
