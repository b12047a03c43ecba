/**
 * Entry point: `node dist/main.js`. Starts the broker from the environment and stops it cleanly on
 * SIGTERM/SIGINT (exit code 0). Once started it prints the ready line. A start-up that fails has already
 * undone what it started; it exits 1 with one line on stderr (an unexpected cause, a bug, prints its stack).
 */
import { inspect } from 'node:util';
import { Broker, VERSION } from './broker.js';
import { StartupFailure } from './boot/sequence.js';
import { ConfigError, loadConfig } from './config.js';
import { readyLine } from './ready-line.js';

async function main(): Promise<void> {
  const startup = new AbortController();
  let broker: Broker | null = null;
  let stopping = false;
  const stop = (signal: string): void => {
    if (broker === null) {
      startup.abort(signal); // the sequence stops at its next step and undoes what it started
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
  try {
    const config = loadConfig();
    const started = await Broker.start(config, startup.signal);
    broker = started;
    started.log.info(readyLine(config, VERSION, started.port));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

main().catch((error: unknown) => {
  // An expected failure is its one line; anything else is a bug: say what was thrown, with its stack.
  const reason = error instanceof StartupFailure && error.expected ? error.message.replace(/\s*\n\s*/g, ' ') : describe(error instanceof StartupFailure ? error.cause : error);
  process.stderr.write(`Queen broker failed to start: ${reason}\n`);
  process.exit(1);
});

/** Whatever was thrown: a library that rejects with nothing must not print "undefined". */
function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? error.message;
  return error === undefined ? 'an unknown error (nothing was thrown with it)' : inspect(error);
}
