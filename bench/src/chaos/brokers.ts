/**
 * The chaos run's broker processes: each slot is one broker (`packages/server/dist/main.js`) on a fixed port
 * with a fixed SERVER_ID and data directory, which the harness kills (SIGKILL) and restarts in place.
 *
 * Design: the child's stdout and stderr are appended straight to <folder>/broker-<name>.stdout.log and
 * .stderr.log (file descriptors, not pipes, so the logs survive a stalled harness), with a marker line per
 * start and per kill. Readiness is GET /health == 200 (or `readyPath`, e.g. /ready; polled up to 120 s). An exit the harness did not cause
 * (no kill, no stop) is recorded with its code, signal and the tail of its stderr, reported to the owner and,
 * while the run goes on, the slot is restarted after a second; a start that fails (e.g. the broker exits
 * because PostgreSQL is unreachable) is retried every 2 s for up to two minutes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathOf, routes } from '@queen/client/api';

const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;
const RESTART_GIVE_UP_MS = 120_000;

/** An exit the harness did not cause. */
export interface UnexpectedExit {
  broker: string;
  pid: number;
  code: number | null;
  signal: string | null;
  /** Wall-clock ISO time. */
  at: string;
  /** The last lines of its stderr (and stdout) log. */
  tail: string[];
}

/** Where a slot runs and what it needs. */
export interface SlotOptions {
  name: string;
  port: number;
  entry: string;
  repoRoot: string;
  folder: string;
  databaseEnv: Record<string, string>;
  /** SERVER_ID (default chaos-<name>). */
  serverId?: string;
  /** The path a start waits for a 200 on (default /health; /ready for a broker that starts during an outage). */
  readyPath?: string;
  log: (line: string) => void;
  onUnexpectedExit: (exit: UnexpectedExit) => void;
}

type State = 'down' | 'starting' | 'running' | 'stopped';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function tailOf(file: string, lines: number): string[] {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return text.split('\n').filter((line) => line.length > 0).slice(-lines);
  } catch {
    return [];
  }
}

/** One broker slot. */
export class BrokerSlot {
  readonly url: string;
  readonly stdoutLog: string;
  readonly stderrLog: string;
  private current: State = 'down';
  /** Successful starts (the first one included). */
  starts = 0;
  /** Starts that failed (exited or not healthy in time) and were retried. */
  failedStarts = 0;
  private child: ChildProcess | undefined;
  private expectingExit = false;
  private stopped = false;
  private restarting: Promise<void> | undefined;

  constructor(private readonly options: SlotOptions) {
    this.url = `http://127.0.0.1:${options.port}`;
    this.stdoutLog = path.join(options.folder, `broker-${options.name}.stdout.log`);
    this.stderrLog = path.join(options.folder, `broker-${options.name}.stderr.log`);
  }

  /** down, starting, running or stopped (final: once stopped, a slot stays stopped). */
  get state(): State {
    return this.stopped ? 'stopped' : this.current;
  }

  private set state(value: State) {
    if (value === 'stopped') this.stopped = true;
    else this.current = value;
  }

  /** The slot's name (a, b). */
  get name(): string {
    return this.options.name;
  }

  /** The current child's pid, or -1. */
  get pid(): number {
    return this.child?.pid ?? -1;
  }

  /** Starts the broker and waits until /health answers 200; throws if it exits first or is not ready in time. */
  async start(): Promise<void> {
    if (this.state === 'stopped') throw new Error(`broker ${this.name} is stopped`);
    this.state = 'starting';
    const dataDir = path.join(this.options.folder, `broker-${this.name}-data`);
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o777 });
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['DATABASE_URL', 'PG_HOST', 'PG_PORT', 'PG_USER', 'PG_PASSWORD', 'PG_DB']) delete env[name];
    Object.assign(env, this.options.databaseEnv, {
      PORT: String(this.options.port),
      HOST: '127.0.0.1',
      SERVER_ID: this.options.serverId ?? `chaos-${this.name}`,
      QUEEN_DATA_DIR: dataDir,
      FILE_BUFFER_DIR: path.join(dataDir, 'buffer'),
      LOG_LEVEL: 'info',
      QUEEN_WORKERS: process.env['QUEEN_WORKERS'] ?? '1', // one process unless asked: the chaos kills a broker by its pid
    });
    const marker = `=== harness ${new Date().toISOString()}: start #${this.starts + this.failedStarts + 1} of broker ${this.name} on port ${this.options.port} ===\n`;
    fs.appendFileSync(this.stdoutLog, marker);
    fs.appendFileSync(this.stderrLog, marker);
    const out = fs.openSync(this.stdoutLog, 'a');
    const err = fs.openSync(this.stderrLog, 'a');
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, [this.options.entry], { cwd: this.options.repoRoot, env, stdio: ['ignore', out, err] });
    } finally {
      fs.closeSync(out);
      fs.closeSync(err);
    }
    this.child = child;
    this.expectingExit = false;
    let exited = false;
    child.once('exit', (code, signal) => {
      exited = true;
      if (this.child === child) this.child = undefined;
      if (this.expectingExit || this.state === 'stopped') return;
      const wasRunning = this.state === 'running';
      this.state = 'down';
      if (!wasRunning) return; // a failed start: start() reports it
      const exit: UnexpectedExit = {
        broker: this.name, pid: child.pid ?? -1, code, signal, at: new Date().toISOString(),
        tail: [...tailOf(this.stderrLog, 15), ...tailOf(this.stdoutLog, 10)],
      };
      fs.appendFileSync(this.stderrLog, `=== harness ${exit.at}: broker ${this.name} (pid ${exit.pid}) exited unexpectedly (code ${code}, signal ${signal}) ===\n`);
      this.options.log(`FINDING: broker ${this.name} (pid ${exit.pid}) exited unexpectedly (code ${code}, signal ${signal}); restarting it`);
      this.options.onUnexpectedExit(exit);
      void this.restartAfter(1000);
    });
    const started = Date.now();
    while (!(await this.healthy())) {
      if (this.stopped) {
        this.expectingExit = true;
        child.kill('SIGKILL');
        throw new Error(`broker ${this.name} was stopped during start-up`);
      }
      if (exited) {
        this.state = 'down';
        throw new Error(`broker ${this.name} exited during start-up (code ${child.exitCode ?? 'null'}, signal ${child.signalCode ?? 'null'})`);
      }
      if (Date.now() - started > READY_TIMEOUT_MS) {
        this.expectingExit = true;
        child.kill('SIGKILL');
        this.state = 'down';
        throw new Error(`broker ${this.name} not healthy after ${READY_TIMEOUT_MS / 1000} s`);
      }
      await sleep(100);
    }
    if (exited) {
      this.state = 'down';
      throw new Error(`broker ${this.name} exited right after becoming healthy`);
    }
    this.state = 'running';
    this.starts++;
  }

  /** Starts, retrying failed starts every 2 s for up to two minutes. */
  async startWithRetries(): Promise<void> {
    const began = Date.now();
    for (;;) {
      try {
        await this.start();
        return;
      } catch (error) {
        if (this.state === 'stopped') return;
        this.failedStarts++;
        const message = error instanceof Error ? error.message : String(error);
        this.options.log(`broker ${this.name}: ${message}`);
        if (Date.now() - began > RESTART_GIVE_UP_MS) throw error;
        await sleep(2000);
      }
    }
  }

  /** SIGKILLs the broker, waits `downMs`, starts it again. Resolves once it is healthy again. */
  async killAndRestart(downMs: number): Promise<void> {
    const child = this.child;
    if (child === undefined || this.state !== 'running') throw new Error(`broker ${this.name} is not running`);
    this.expectingExit = true;
    this.state = 'down';
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const at = new Date().toISOString();
    fs.appendFileSync(this.stderrLog, `=== harness ${at}: SIGKILL to broker ${this.name} (pid ${child.pid ?? '?'}) ===\n`);
    child.kill('SIGKILL');
    await exited;
    await sleep(downMs);
    await this.startWithRetries();
  }

  /** SIGTERMs the broker (a rolling restart: it drains), waits for its exit and `downMs`, starts it again. */
  async terminateAndRestart(downMs: number): Promise<void> {
    const child = this.child;
    if (child === undefined || this.state !== 'running') throw new Error(`broker ${this.name} is not running`);
    this.expectingExit = true;
    this.state = 'down';
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    fs.appendFileSync(this.stderrLog, `=== harness ${new Date().toISOString()}: SIGTERM to broker ${this.name} (pid ${child.pid ?? '?'}) ===\n`);
    child.kill('SIGTERM');
    await exited;
    await sleep(downMs);
    await this.startWithRetries();
  }

  /** Resolves when no restart of this slot is in progress. */
  async settled(): Promise<void> {
    await this.restarting;
  }

  /** True when /health (or `readyPath`) answers 200. */
  async healthy(): Promise<boolean> {
    try {
      const response = await fetch(`${this.url}${this.options.readyPath ?? pathOf(routes.health, {})}`, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      return response.status === 200;
    } catch {
      return false;
    }
  }

  /** Stops the broker for good: SIGTERM, SIGKILL after 30 s. */
  async stop(): Promise<void> {
    this.state = 'stopped';
    await this.restarting?.catch(() => undefined);
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), STOP_TIMEOUT_MS);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    child.kill('SIGTERM');
    if (!(await exited)) {
      this.options.log(`broker ${this.name} did not stop within ${STOP_TIMEOUT_MS / 1000} s; SIGKILL`);
      child.kill('SIGKILL');
    }
  }

  /** Synchronous last resort for exit paths. */
  killNow(): void {
    this.state = 'stopped';
    if (this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  private restartAfter(ms: number): Promise<void> {
    this.restarting = (async () => {
      await sleep(ms);
      if (this.state === 'stopped') return;
      try {
        await this.startWithRetries();
      } catch (error) {
        this.options.log(`broker ${this.name} could not be restarted: ${error instanceof Error ? error.message : String(error)}`);
      }
    })();
    return this.restarting;
  }
}
