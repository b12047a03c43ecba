/**
 * Shared fixtures of the CLI suites: `queenctl()` runs the built executable (packages/c../dist/queenctl.js, what
 * `npx queenctl` runs) as a child process with a private HOME and config file, and returns its exit code,
 * stdout and stderr. Every suite talks to a real broker from the server's harness.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built executable (the bundle `npm run build` makes; bin/queenctl.js runs it). */
export const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/queenctl.js');

/** A finished run. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of one run. */
export interface RunOptions {
  /** Extra environment (merged over a clean one: PATH, HOME, QUEEN_CONFIG). */
  env?: Record<string, string | undefined>;
  /** Written to stdin, then closed (stdin is an empty pipe otherwise). */
  input?: string;
  timeoutMillis?: number;
}

/** A private HOME with its config path, removed by the caller's `after`. */
export function tempHome(): { home: string; config: string; remove(): void } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'queenctl-test-'));
  return { home, config: path.join(home, '.queen', 'config.yaml'), remove: () => fs.rmSync(home, { recursive: true, force: true }) };
}

const shared = tempHome();
process.on('exit', shared.remove); // the HOME every run of this test file shares goes with the file's process

/** The environment of a run: nothing of the caller's QUEEN_* or colour settings leaks in. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: shared.home, QUEEN_CONFIG: shared.config, QUEENCTL_KEYCHAIN: 'off', ...extra };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Starts queenctl without waiting (tail tests signal it). */
export function spawnCli(args: string[], options: RunOptions = {}): ChildProcess & { result: Promise<Run> } {
  const child = spawn(process.execPath, [MAIN, ...args], { env: cleanEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  if (options.input !== undefined) child.stdin!.end(options.input);
  else child.stdin!.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMillis ?? 30_000);
  const result = new Promise<Run>((resolve) => child.on('close', (code) => {
    clearTimeout(timer);
    resolve({ code, stdout, stderr });
  }));
  return Object.assign(child, { result });
}

/** Runs queenctl to the end. */
export function queenctl(args: string[], options: RunOptions = {}): Promise<Run> {
  return spawnCli(args, options).result;
}

/** A runner bound to a server URL (`--server` given, as upstream's e2e suite does). */
export function cliFor(server: () => string) {
  return (args: string[], options: RunOptions = {}) => queenctl(['--server', server(), ...args], options);
}

/** Parses NDJSON output into values. */
export function ndjson<T = any>(text: string): T[] { // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as T);
}

/** Waits until `check` holds (polling), or fails after `timeoutMillis`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMillis = 10_000, what = 'condition'): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMillis) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Compares text to a golden file (`UPDATE_GOLDEN=1` rewrites it). */
export function golden(name: string, actual: string): string {
  const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'golden', name);
  if (process.env.UPDATE_GOLDEN === '1') fs.writeFileSync(file, actual);
  return fs.readFileSync(file, 'utf8');
}
