/**
 * Which server and token a command uses (docs/cli.md). Lowest to highest: the file's `current-context` <
 * `$QUEEN_CONTEXT` < `--context` (each picks a whole context: server, insecure, token) < `$QUEEN_SERVER` /
 * `$QUEEN_TOKEN` < `--server` / `--token`. A named context that does not exist is a user error.
 */
import fs from 'node:fs';
import { CliError, EXIT, userError } from './errors.js';
import type { ConfigFile, ContextEntry } from './config-file.js';
import { detectKeychain } from './keychain.js';

/** The resolved target of a command. */
export interface Connection {
  server: string;
  token: string | undefined;
  insecure: boolean;
  context: string | undefined;
}

/** The global flags that take part in the resolution. */
export interface ConnectionFlags {
  context?: string;
  server?: string;
  token?: string;
  insecure?: boolean;
}

/** The context a command runs in, or undefined when none is selected. */
export function selectContext(flags: ConnectionFlags, env: NodeJS.ProcessEnv, config: ConfigFile): ContextEntry | undefined {
  const name = flags.context ?? (env.QUEEN_CONTEXT || undefined) ?? config['current-context'];
  if (name === undefined) return undefined;
  const found = config.contexts.find((c) => c.name === name);
  if (!found) {
    const source = flags.context !== undefined ? '--context' : env.QUEEN_CONTEXT ? '$QUEEN_CONTEXT' : 'current-context';
    const known = config.contexts.map((c) => c.name).join(', ') || 'none';
    throw userError(`unknown context "${name}" (from ${source}; known: ${known})`);
  }
  return found;
}

/** Resolves a `token-ref` (docs/cli.md) into the token itself. */
export function resolveTokenRef(ref: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (!ref) return undefined;
  if (ref === 'env') return env.QUEEN_TOKEN || undefined;
  if (ref.startsWith('keychain://')) {
    const account = ref.slice('keychain://'.length);
    const keychain = detectKeychain(env);
    if (!keychain) throw new CliError(`token-ref ${ref}: no keychain on this machine (store the token with 'queenctl config set-context --no-keychain --token ...')`, EXIT.auth);
    const token = keychain.get(account);
    if (token === undefined) throw new CliError(`token-ref ${ref}: no entry in the keychain (run 'queenctl login --context ${account}')`, EXIT.auth);
    return token;
  }
  if (ref.startsWith('file://')) {
    const file = ref.slice('file://'.length);
    try {
      return fs.readFileSync(file, 'utf8').trim() || undefined;
    } catch (error) {
      throw userError(`token-ref ${ref}: ${(error as Error).message}`);
    }
  }
  if (ref.startsWith('literal:')) return ref.slice('literal:'.length) || undefined;
  return ref;
}

/** Resolves server, token and TLS setting; exit 1 when no server is configured. */
export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv, config: ConfigFile): Connection {
  const context = selectContext(flags, env, config);
  const server = flags.server ?? (env.QUEEN_SERVER || undefined) ?? context?.server;
  if (!server) {
    throw userError("no server configured: pass --server <url>, set $QUEEN_SERVER, or create a context with 'queenctl config set-context <name> --server <url>'");
  }
  if (!/^https?:\/\//.test(server)) throw userError(`invalid server URL "${server}": must start with http:// or https://`);
  // The API prefix is queenctl's to add: "…/api/v1" would become "/api/v1/api/v1/…" (a prefix of a reverse proxy stays).
  const api = /^(https?:\/\/[^/]+.*?)\/api\/v1\/?$/.exec(server);
  if (api !== null) throw userError(`invalid server URL "${server}": give the broker's address without /api/v1 (${api[1]}): queenctl adds the API path itself`);
  const token = flags.token ?? (env.QUEEN_TOKEN || undefined) ?? (context && context['token-ref'] !== 'env' ? resolveTokenRef(context['token-ref'], env) : undefined);
  return { server, token, insecure: Boolean(flags.insecure) || Boolean(context?.insecure), context: context?.name };
}
