/**
 * Structured logging through pino; the level comes from LOG_LEVEL, the format from LOG_FORMAT.
 *
 * `json` writes pino's JSON lines (for log collectors); `pretty` writes one short human line per record
 * (`12:00:01 INFO  message key=value`), errors with their stack; `auto` (the default) is pretty when stdout
 * is a terminal and JSON otherwise. The pretty writer is a dozen lines rather than pino-pretty: it runs in
 * the process (no worker thread, nothing to install) and only a person at a terminal ever reads it.
 */
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** The output formats of LOG_FORMAT. */
export type LogFormat = 'auto' | 'json' | 'pretty';

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const OMITTED = new Set(['level', 'time', 'pid', 'hostname', 'serverId', 'msg', 'err']);

/** Renders one pino JSON record as a human line (plus the error's stack, when there is one). */
export function prettyLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = new Date(typeof record.time === 'number' ? record.time : Date.now()).toTimeString().slice(0, 8);
  const level = (LEVEL_NAMES[record.level as number] ?? String(record.level)).padEnd(5);
  const fields = Object.entries(record)
    .filter(([key]) => !OMITTED.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const err = record.err as { message?: string; stack?: string } | undefined;
  const head = [time, level, record.msg ?? '', ...fields].join(' ');
  return err === undefined ? `${head}\n` : `${head}\n  ${(err.stack ?? err.message ?? '').replace(/\n/g, '\n  ')}\n`;
}

/** A pino destination that writes pretty lines to stdout. */
function prettyStdout(): DestinationStream {
  return { write: (line: string) => void process.stdout.write(prettyLine(line)) };
}

/** Creates the process logger. */
export function createLogger(level: string, serverId: string, format: LogFormat = 'json'): Logger {
  const pretty = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  return pretty ? pino({ level, base: { serverId } }, prettyStdout()) : pino({ level, base: { serverId } });
}
