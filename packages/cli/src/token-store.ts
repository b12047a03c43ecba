/**
 * Where a context's token goes (docs/cli.md): the OS keychain as `keychain://<context>` when there is one,
 * otherwise (or with `--no-keychain`) `literal:<jwt>` in the 0600 config file, with a warning saying so.
 */
import { detectKeychain } from './keychain.js';
import type { Output } from './output.js';

/** Stores `token` for `context`; resolves with the token-ref to write into the config file. */
export function storeToken(context: string, token: string, options: { noKeychain?: boolean; out: Output; env?: NodeJS.ProcessEnv }): string {
  const keychain = options.noKeychain ? undefined : detectKeychain(options.env);
  if (keychain) {
    keychain.set(context, token);
    return `keychain://${context}`;
  }
  if (!options.noKeychain) options.out.warn('no OS keychain on this machine: the token is stored as literal: in the config file (mode 0600)');
  return `literal:${token}`;
}

/** Removes the keychain entry of a token-ref, if it is one. */
export function forgetToken(ref: string | undefined, env?: NodeJS.ProcessEnv): void {
  if (!ref?.startsWith('keychain://')) return;
  detectKeychain(env)?.delete(ref.slice('keychain://'.length));
}
