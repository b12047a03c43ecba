/**
 * `login` and `logout` (docs/cli.md). `--method token` (the default) takes `--token` or a hidden prompt, checks
 * it against the broker and stores it (keychain, else `literal:`). `password` and `google` talk to
 * queen-mq-proxy's sign-in routes (the SDK's api/proxy.ts); our broker has neither, so against it they end with a message
 * pointing at `--method token`.
 */
import { QueenError } from '@queen/client';
import { createTransport, getOverview, proxyAuthConfig, proxyGoogleSignInUrl, proxyLogin, proxyRoutes, type ProxyAnswer } from '@queen/client/api';
import type { Command } from 'commander';
import { Option } from 'commander';
import { action, sub } from '../command.js';
import { CliError, EXIT, userError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { forgetToken, storeToken } from '../token-store.js';

/** Reads a secret from the terminal without echo (or a line from a pipe). */
async function promptSecret(question: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const c of stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8').split('\n')[0]!.trim();
  }
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  let text = '';
  try {
    return await new Promise<string>((resolve, reject) => {
      stdin.on('data', (chunk: Buffer) => {
        for (const ch of chunk.toString('utf8')) {
          if (ch === '\r' || ch === '\n') return resolve(text.trim());
          if (ch === '\u0003') return reject(new CliError('cancelled', EXIT.cancelled, true));
          if (ch === '\u007f') text = text.slice(0, -1);
          else text += ch;
        }
      });
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    process.stderr.write('\n');
  }
}

/** A call to queen-mq-proxy (the SDK's api/proxy.ts): unreachable is a server error, 404 says the broker has no proxy. */
async function proxyOnly<T>(server: string, path: string, call: () => Promise<ProxyAnswer<T>>): Promise<ProxyAnswer<T>> {
  let answer: ProxyAnswer<T>;
  try {
    answer = await call();
  } catch (error) {
    throw new CliError(`cannot reach ${server}: ${(error as Error).message}`, EXIT.server);
  }
  if (answer.status === 404) throw userError(`${server} has no ${path} (that method needs queen-mq-proxy in front of the broker): use --method token`);
  return answer;
}

/** Registers `login` and `logout`. */
export function registerAuth(program: Command): void {
  action(sub(program, 'login', 'Store a token for a context (token; password and google need queen-mq-proxy)', ['queenctl login --token "$JWT"', 'queenctl login --context prod   # prompts for the token'])
    .addOption(new Option('--method <method>', 'how to get the token').choices(['token', 'password', 'google']))
    .option('-u, --user <name>', 'user name (password method)')
    .option('--password <password>', 'password (password method; prompted when absent)')
    .option('--no-browser', 'google method: print the URL instead of opening it')
    .option('--no-keychain', 'store the token as literal: in the config file'), async (rt, opts) => {
    const file = await rt.loadConfig();
    const name = rt.flags.context ?? (rt.env.QUEEN_CONTEXT || undefined) ?? file['current-context'];
    const entry = file.contexts.find((c) => c.name === name);
    if (!name || !entry?.server) throw userError("login needs a context with a server: 'queenctl config set-context <name> --server <url>' first");
    const method: string = opts.method ?? (opts.user ? 'password' : 'token');
    let token: string;
    if (method === 'token') {
      token = rt.flags.token ?? (await promptSecret('Token: '));
      if (!token) throw userError('no token given');
      // Check the token where it will be used: a read-only route that needs a valid token when auth is on.
      // One attempt, no client-side checks beyond the 401: any other answer means the token was accepted.
      const check = createTransport({ url: entry.server, bearerToken: token, retryAttempts: 1, handleSignals: false });
      await getOverview(check, { signal: rt.signal }).catch((error: unknown) => {
        if (!(error instanceof QueenError)) throw error;
        if (error.code === 'HTTP' && error.status === 401) throw new CliError(`the server rejected the token (401): ${(error.body as { error?: string } | null)?.error ?? 'unauthorized'}`, EXIT.auth);
        if (error.code !== 'HTTP') throw new CliError(`cannot reach ${entry.server}: ${error.message}`, EXIT.server);
      });
    } else if (method === 'password') {
      if (!opts.user) throw userError('--method password needs -u <user>');
      const password: string = opts.password ?? (await promptSecret('Password: '));
      const server = entry.server;
      const res = await proxyOnly(server, proxyRoutes.login.path, () => proxyLogin(server, { username: opts.user, password }, rt.signal));
      if (res.status === 401) throw new CliError('login refused (401): wrong user or password', EXIT.auth);
      if (res.value === null) throw new CliError(`login failed (${res.status}): no token cookie in the answer`, EXIT.auth);
      token = res.value;
    } else {
      const server = entry.server;
      const res = await proxyOnly(server, proxyRoutes.authConfig.path, () => proxyAuthConfig(server, rt.signal));
      if (!res.value?.google?.enabled) throw userError(`${server} does not offer Google sign-in`);
      process.stderr.write(`Sign in at ${proxyGoogleSignInUrl(server)}, then paste the token shown.\n`);
      token = await promptSecret('Token: ');
      if (!token) throw userError('no token given');
    }
    entry['token-ref'] = storeToken(name, token, { noKeychain: opts.keychain === false, out: rt.out, env: rt.env });
    await rt.saveConfig(file);
    rt.out.done(`logged in to context "${name}" (${entry['token-ref'].startsWith('keychain://') ? 'token in the keychain' : 'token in the config file'})`);
  });

  action(sub(program, 'logout', "Forget a context's token (keychain entry and token-ref)", 'queenctl logout --context prod'), async (rt) => {
    const file = await rt.loadConfig();
    const name = rt.flags.context ?? (rt.env.QUEEN_CONTEXT || undefined) ?? file['current-context'];
    const entry = file.contexts.find((c) => c.name === name);
    if (!entry) throw userError(name ? `unknown context "${name}"` : 'no current context: pass --context <name>');
    forgetToken(entry['token-ref'], rt.env);
    delete entry['token-ref'];
    await rt.saveConfig(file);
    rt.out.done(`logged out of context "${name}"`);
  });
}
