/**
 * Entry point: `node dist/main.js`. Starts the broker from the environment and stops it cleanly on
 * SIGTERM/SIGINT (exit code 0).
 */
import { inspect } from 'node:util';
import { Broker, VERSION } from './broker.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { readyLine } from './ready-line.js';

async function main(): Promise<void> {
  let broker: Broker;
  let config: Config;
  try {
    config = loadConfig();
    broker = await Broker.start(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  broker.log.info(readyLine(config, VERSION, broker.port));
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    broker.log.info({ signal }, 'shutting down');
    broker.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        broker.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  // Whatever was thrown, say what it was: a library that rejects with nothing must not print "undefined".
  const reason = error instanceof Error ? (error.stack ?? error.message) : error === undefined ? 'an unknown error (nothing was thrown with it)' : inspect(error);
  process.stderr.write(`Queen broker failed to start: ${reason}\n`);
  process.exit(1);
});
