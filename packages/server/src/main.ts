/**
 * Entry point: `node dist/main.js`. Starts the broker from the environment and stops it cleanly on
 * SIGTERM/SIGINT (exit code 0). A start-up that fails has already undone what it started; it exits 1 with
 * one line on stderr (plus the stack when the cause was not an expected condition, which is a bug).
 */
import { Broker } from './broker.js';
import { StartupFailure } from './boot/sequence.js';
import { ConfigError, loadConfig } from './config.js';

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
    broker = await Broker.start(loadConfig(), startup.signal);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

main().catch((error: unknown) => {
  const line = error instanceof Error ? error.message : String(error);
  const stack = error instanceof StartupFailure ? (error.expected ? null : stackOf(error.cause)) : stackOf(error);
  process.stderr.write(`Queen broker failed to start: ${line.replace(/\s*\n\s*/g, ' ')}\n${stack === null ? '' : `${stack}\n`}`);
  process.exit(1);
});

/** The stack of an unexpected error, without its first line (already printed). */
function stackOf(error: unknown): string | null {
  if (!(error instanceof Error) || error.stack === undefined) return null;
  return error.stack.split('\n').slice(1).join('\n') || null;
}
