/**
 * Structured logging through pino; the level comes from LOG_LEVEL, the format from LOG_FORMAT.
 *
 * `json` writes pino's JSON lines (for log collectors); `pretty` writes one short human line per record
 * (`12:00:01 INFO  message key=value`), errors with their stack; `auto` (the default) is pretty when stdout
 * is a terminal and JSON otherwise. The pretty writer is a dozen lines rather than pino-pretty: it runs in
 * the process (no worker thread, nothing to install) and only a person at a terminal ever reads it.
 */
import { inspect } from 'node:util';
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
  if (err === undefined) return `${head}\n`;
  // A lost connection is news in one line; anything else shows its stack below.
  if (err.stack === undefined) return `${head} error=${JSON.stringify(err.message ?? '')}\n`;
  return `${head}\n  ${err.stack.replace(/\n/g, '\n  ')}\n`;
}

/** Network and server-side codes of a connection that went away (SQLSTATE class 08, admin shutdown 57P0x). */
const CONNECTION_CODES = /^(E(CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|HOSTUNREACH|NOTFOUND)|08...|57P0[1-3])$/;
const CONNECTION_MESSAGES = /connection terminated|terminating connection|connection error|server closed the connection/i;
/** Longest string field of an error kept in a record. */
const MAX_FIELD = 200;

/**
 * What a log record keeps of an error (`err`): its type, message, scalar fields (code, detail, ...) and stack,
 * never the objects some errors carry (a pg client, a socket: kilobytes per line). A lost connection keeps no
 * stack: it is one line. Anything thrown that is not an Error is shown briefly.
 */
export function errorFields(value: unknown): Record<string, unknown> {
  if (!(value instanceof Error)) return { message: typeof value === 'string' ? value : inspect(value, { depth: 0, breakLength: Infinity }).slice(0, MAX_FIELD) };
  const out: Record<string, unknown> = { type: value.name, message: value.message };
  for (const [key, field] of Object.entries(value)) {
    if (key === 'message' || key === 'stack' || field === undefined) continue;
    if ((typeof field === 'string' && field.length <= MAX_FIELD) || typeof field === 'number' || typeof field === 'boolean') out[key] = field;
  }
  const code = (value as { code?: unknown }).code;
  const lostConnection = (typeof code === 'string' && CONNECTION_CODES.test(code)) || CONNECTION_MESSAGES.test(value.message);
  if (!lostConnection && value.stack !== undefined) out.stack = value.stack;
  return out;
}

/** A pino destination that writes pretty lines to stdout. */
function prettyStdout(): DestinationStream {
  return { write: (line: string) => void process.stdout.write(prettyLine(line)) };
}

/** Creates the process logger. */
export function createLogger(level: string, serverId: string, format: LogFormat = 'json'): Logger {
  const pretty = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  const options = { level, base: { serverId }, serializers: { err: errorFields } };
  return pretty ? pino(options, prettyStdout()) : pino(options);
}
