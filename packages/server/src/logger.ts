/** Structured logging through pino; the level comes from LOG_LEVEL. */
import { pino, type Logger } from 'pino';

export type { Logger };

/** Creates the process logger. */
export function createLogger(level: string, serverId: string): Logger {
  return pino({ level, base: { serverId } });
}
