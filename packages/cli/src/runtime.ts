/**
 * What one command run needs, resolved lazily from the global flags and the environment: the output settings,
 * the config file, the broker connection and the cancellation signal (SIGINT/SIGTERM abort it; a second signal
 * exits at once). Commands receive a Runtime and never read flags or the environment themselves.
 */
import fs from 'node:fs';
import { Api } from './api.js';
import { configPath, loadConfig, saveConfig, type ConfigFile } from './config-file.js';
import { resolveConnection, type Connection } from './connection.js';
import { EXIT, userError } from './errors.js';
import { colourEnabled, Output, parseFormat } from './output.js';

/** The global flags of docs/cli.md, as commander parsed them. */
export interface GlobalFlags {
  context?: string;
  server?: string;
  token?: string;
  output?: string;
  color?: boolean;
  insecure?: boolean;
  quiet?: boolean;
  headers?: boolean;
  config?: string;
}

/** One command run. */
export class Runtime {
  private outputCache: Output | undefined;
  private apiCache: Api | undefined;
  private readonly controller = new AbortController();
  private readonly onSignal = (signal: NodeJS.Signals) => {
    if (this.controller.signal.aborted) process.exit(EXIT.cancelled);
    this.cancelledBy = signal;
    this.controller.abort();
  };
  /** The signal that cancelled the run, if any. */
  cancelledBy: NodeJS.Signals | undefined;

  constructor(
    readonly flags: GlobalFlags,
    readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  /** Aborted on SIGINT/SIGTERM. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Removes the signal handlers (end of the run). */
  dispose(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }

  /** Output settings: `-o` or table on a TTY / json when piped. */
  get out(): Output {
    if (!this.outputCache) {
      const tty = Boolean(process.stdout.isTTY);
      const format = this.flags.output !== undefined ? parseFormat(this.flags.output) : parseFormat(tty ? 'table' : 'json');
      this.outputCache = new Output(format, this.flags.output !== undefined, colourEnabled(this.flags.color, this.env, tty), this.flags.headers !== false, Boolean(this.flags.quiet));
    }
    return this.outputCache;
  }

  /** The config file path of this run. */
  get configFile(): string {
    return configPath(this.flags.config, this.env);
  }

  /** Reads the config file. */
  loadConfig(): Promise<ConfigFile> {
    return loadConfig(this.configFile);
  }

  /** Writes the config file atomically. */
  saveConfig(config: ConfigFile): Promise<void> {
    return saveConfig(this.configFile, config);
  }

  /** Resolves server and token (docs/cli.md). */
  async connection(): Promise<Connection> {
    return resolveConnection(this.flags, this.env, await this.loadConfig());
  }

  /** The broker API (resolved once per run). */
  async api(): Promise<Api> {
    if (this.apiCache) return this.apiCache;
    const conn = await this.connection();
    if (conn.insecure && conn.server.startsWith('https:')) allowInsecureTls();
    const { Queen } = await import('@queen/client');
    const queen = new Queen({ url: conn.server, bearerToken: conn.token ?? null, handleSignals: false, retryAttempts: 3, retryDelayMillis: 200, timeoutMillis: 30_000 });
    this.apiCache = new Api(queen, conn.server, this.signal);
    return this.apiCache;
  }

  /** The text of `-f <file>` or stdin for `-`/absent; exit 1 when the file cannot be read. */
  async readInput(file: string | undefined): Promise<string> {
    if (file !== undefined && file !== '-') {
      try {
        return fs.readFileSync(file, 'utf8');
      } catch (error) {
        throw userError(`cannot read ${file}: ${(error as Error).message}`);
      }
    }
    if (process.stdin.isTTY) throw userError('no input: pass -f <file>, or pipe it on stdin (-f -)');
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
}

/** `--insecure` on https: certificate checks off for this process (Node's fetch reads this setting per connection). */
function allowInsecureTls(): void {
  const emit = process.emitWarning.bind(process);
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).includes('NODE_TLS_REJECT_UNAUTHORIZED')) return;
    (emit as (w: string | Error, ...r: unknown[]) => void)(warning, ...rest);
  }) as typeof process.emitWarning;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
}
