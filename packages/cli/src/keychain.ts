/**
 * The OS keychain for tokens (docs/cli.md), reached through the platform's own command-line tool so the CLI
 * needs no native module: `security` on macOS, `secret-tool` (libsecret, needs a D-Bus session) on Linux. Service
 * `queenctl`, account = the context name. Where neither is usable (Windows, containers, CI, this project's
 * machines) there is no keychain and callers fall back to `literal:` tokens in the 0600 config file.
 * `QUEENCTL_KEYCHAIN=off` forces the fallback.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CliError, EXIT } from './errors.js';

const SERVICE = 'queenctl';

/** A usable keychain. */
export interface Keychain {
  /** Tool name, for messages. */
  readonly tool: string;
  get(account: string): string | undefined;
  set(account: string, secret: string): void;
  delete(account: string): void;
}

function onPath(tool: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const full = path.join(dir, tool);
    try {
      fs.accessSync(full, fs.constants.X_OK);
      return full;
    } catch {
      // not here
    }
  }
  return undefined;
}

function run(tool: string, args: string[], input?: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(tool, args, { input, encoding: 'utf8', timeout: 10_000 });
  return { code: r.status ?? 1, stdout: r.stdout ?? '', stderr: (r.stderr ?? '') + (r.error ? r.error.message : '') };
}

function failed(what: string, detail: string): CliError {
  return new CliError(`keychain ${what} failed: ${detail.trim() || 'unknown error'}`, EXIT.auth);
}

/** The keychain of this machine, or undefined when there is none. */
export function detectKeychain(env: NodeJS.ProcessEnv = process.env): Keychain | undefined {
  if ((env.QUEENCTL_KEYCHAIN ?? '').toLowerCase() === 'off') return undefined;
  if (process.platform === 'darwin') {
    const tool = onPath('security', env);
    if (!tool) return undefined;
    return {
      tool: 'security',
      get: (account) => {
        const r = run(tool, ['find-generic-password', '-s', SERVICE, '-a', account, '-w']);
        return r.code === 0 ? r.stdout.trim() : undefined;
      },
      set: (account, secret) => {
        const r = run(tool, ['add-generic-password', '-U', '-s', SERVICE, '-a', account, '-w', secret]);
        if (r.code !== 0) throw failed('write', r.stderr);
      },
      delete: (account) => void run(tool, ['delete-generic-password', '-s', SERVICE, '-a', account]),
    };
  }
  if (process.platform === 'linux') {
    const tool = onPath('secret-tool', env);
    if (!tool || !env.DBUS_SESSION_BUS_ADDRESS) return undefined;
    return {
      tool: 'secret-tool',
      get: (account) => {
        const r = run(tool, ['lookup', 'service', SERVICE, 'account', account]);
        return r.code === 0 && r.stdout !== '' ? r.stdout.replace(/\n$/, '') : undefined;
      },
      set: (account, secret) => {
        const r = run(tool, ['store', `--label=queenctl ${account}`, 'service', SERVICE, 'account', account], secret);
        if (r.code !== 0) throw failed('write', r.stderr);
      },
      delete: (account) => void run(tool, ['clear', 'service', SERVICE, 'account', account]),
    };
  }
  return undefined;
}
