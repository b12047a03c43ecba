/**
 * Entry point: `node dist/main.js`. Starts the broker from the environment and stops it cleanly on
 * SIGTERM/SIGINT (exit code 0).
 */
import { Broker } from './broker.js';
import { ConfigError, loadConfig } from './config.js';

async function main(): Promise<void> {
  let broker: Broker;
  try {
    broker = await Broker.start(loadConfig());
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
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
  process.stderr.write(`Queen broker failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
