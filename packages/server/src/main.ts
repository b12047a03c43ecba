/**
 * Entry point: `node dist/main.js`. Starts the broker from the environment and stops it cleanly on
 * SIGTERM/SIGINT (exit code 0); with QUEEN_WORKERS > 1 this process is the workers' primary (boot/workers.ts)
 * and each worker runs this entry point again as one broker. Once started it prints the ready line. A start-up that fails has already
 * undone what it started; it exits 1 with one line on stderr (an unexpected cause, a bug, prints its stack).
 */
import { inspect } from 'node:util';
import v8 from 'node:v8';
import { Broker, VERSION } from './broker.js';
import { StartupFailure } from './boot/sequence.js';
import { announceReady } from './boot/worker-peers.js';
import { isPrimary, runPrimary } from './boot/workers.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { readyLine } from './ready-line.js';

/**
 * V8 lets the old generation grow to up to 4 times what survived the last full collection before it collects
 * again. A burst that keeps many requests in flight for seconds (10 000 long polls arriving at once, each
 * waiting for a database connection) promotes everything they allocate, and the heap then grew to 600-700 MB
 * for a live set of about 150 MB (`scale-parked-10000`, docs/performance-analysis.md). Growing by at most
 * 1.5 times keeps the peak near twice the live set; with the small live heap of ordinary load it only means
 * more, and shorter, full collections (measured: push-b100 and drain unchanged). An explicit
 * --heap-growing-percent on the command line wins.
 */
const HEAP_GROWING_PERCENT = 50;

async function main(): Promise<void> {
  if (!process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent') || arg.startsWith('--heap_growing_percent'))) {
    v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    exitOnConfigError(error);
  }
  // QUEEN_WORKERS > 1: this process starts PostgreSQL and the workers (boot/workers.ts), each of them a broker.
  if (isPrimary(config)) process.exit(await runPrimary(config, (port) => readyLine(config, VERSION, port)));
  const startup = new AbortController();
  let broker: Broker | null = null;
  let stopping = false;
  const stop = (signal: string): void => {
    if (broker === null) {
      if (startup.signal.aborted) {
        // A second Ctrl-C while start-up undoes its steps: the operator does not want to wait for them.
        process.stderr.write(`Queen broker: ${signal} again during start-up; exiting without waiting for the undo\n`);
        process.exit(1);
      }
      // The sequence stops at once (a wait for PostgreSQL included) and undoes what it started.
      startup.abort(signal);
      return;
    }
    if (stopping) return;
    stopping = true;
    const running = broker;
    running.log.info({ signal }, 'shutting down');
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        running.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // A worker whose primary is gone (killed) stops as if told to: no broker outlives its primary.
  if (config.worker !== null) process.on('disconnect', () => stop('the primary process exited'));
  let started: Broker;
  try {
    started = await Broker.start(config, startup.signal);
  } catch (error) {
    // A setting that only start-up can judge (a JWT key that cannot verify anything) is a configuration error too.
    exitOnConfigError(error);
  }
  broker = started;
  if (config.worker === null) started.log.info(readyLine(config, VERSION, started.port));
  else announceReady(started.port); // the primary prints the ready line once every worker serves
}

main().catch((error: unknown) => {
  // An expected failure is its one line; anything else is a bug: say what was thrown, with its stack.
  const reason = error instanceof StartupFailure && error.expected ? error.message.replace(/\s*\n\s*/g, ' ') : describe(error instanceof StartupFailure ? error.cause : error);
  process.stderr.write(`Queen broker failed to start: ${reason}\n`);
  process.exit(1);
});

/** A configuration error is its one line and exit code 2; anything else is thrown on. */
function exitOnConfigError(error: unknown): never {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`configuration error: ${error.message}\n`);
  process.exit(2);
}

/** Whatever was thrown: a library that rejects with nothing must not print "undefined". */
function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? error.message;
  return error === undefined ? 'an unknown error (nothing was thrown with it)' : inspect(error);
}
