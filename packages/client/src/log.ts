/**
 * Logger resolution. The SDK is silent unless a logger is given, or, in Node, `QUEEN_CLIENT_LOG=true`. The
 * environment is reached through `globalThis.process` (runtime detection), never an import, so the bundle
 * stays browser-safe.
 */
import type { Logger } from './types.js';

/** A logger whose four levels are all callable. */
export interface SafeLogger {
  debug(msg: string, meta?: object): void;
  info(msg: string, meta?: object): void;
  warn(msg: string, meta?: object): void;
  error(msg: string, meta?: object): void;
}

interface NodeLikeProcess {
  env?: Record<string, string | undefined>;
}

/** The Node `process` object when running in Node, else undefined. */
export function nodeProcess<P = NodeLikeProcess>(): P | undefined {
  const candidate = (globalThis as { process?: unknown }).process;
  return candidate !== null && typeof candidate === 'object' ? (candidate as P) : undefined;
}

const SILENT: SafeLogger = { debug() {}, info() {}, warn() {}, error() {} };

const CONSOLE: SafeLogger = {
  debug: (msg, meta) => console.debug(`[queen] ${msg}`, meta ?? ''),
  info: (msg, meta) => console.info(`[queen] ${msg}`, meta ?? ''),
  warn: (msg, meta) => console.warn(`[queen] ${msg}`, meta ?? ''),
  error: (msg, meta) => console.error(`[queen] ${msg}`, meta ?? ''),
};

/** The logger the client uses: the caller's, else the console with QUEEN_CLIENT_LOG=true, else silence. */
export function resolveLogger(logger: Logger | null | undefined): SafeLogger {
  if (logger) {
    // Guard every call: a throwing user logger must never break a consume loop or a flush.
    const call = (level: keyof Logger) => (msg: string, meta?: object) => {
      try {
        logger[level]?.call(logger, msg, meta);
      } catch {
        // ignored on purpose
      }
    };
    return { debug: call('debug'), info: call('info'), warn: call('warn'), error: call('error') };
  }
  return nodeProcess()?.env?.QUEEN_CLIENT_LOG === 'true' ? CONSOLE : SILENT;
}
