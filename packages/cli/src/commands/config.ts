/**
 * `config` (docs/cli.md): view, current-context, get-contexts, set-context, use-context, delete-context. These
 * touch only the config file (and the keychain), never the broker.
 */
import type { Command } from 'commander';
import { action, sub, type Opts } from '../command.js';
import { authKind, type ContextEntry } from '../config-file.js';
import { noop, userError } from '../errors.js';
import { toYaml } from '../output.js';
import { forgetToken, storeToken } from '../token-store.js';

/** Registers `config`. */
export function registerConfig(program: Command): void {
  const config = sub(program, 'config', 'Contexts in ~/.queen/config.yaml: view, get-contexts, set-context, use-context, delete-context', 'queenctl config get-contexts');
  action(sub(config, 'view', 'The config file as YAML (token references, not tokens)', 'queenctl config view'), async (rt) => {
    const file = await rt.loadConfig();
    if (rt.out.format.kind === 'table' || rt.out.format.kind === 'wide') rt.out.write(await toYaml(file));
    else await rt.out.print(file);
  });
  action(sub(config, 'current-context', 'The name of the current context', 'queenctl config current-context', ['current']), async (rt) => {
    const file = await rt.loadConfig();
    if (!file['current-context']) throw noop();
    rt.out.write(`${file['current-context']}\n`);
  });
  action(sub(config, 'get-contexts', 'Every context: server, token kind, current marker', 'queenctl config get-contexts -o wide', ['list', 'ls']), async (rt) => {
    const file = await rt.loadConfig();
    const rows = file.contexts.map((c) => ({ current: c.name === file['current-context'] ? '*' : '', name: c.name, server: c.server ?? '', auth: authKind(c['token-ref']), insecure: Boolean(c.insecure) }));
    await rt.out.print(rows, {
      rows: (b) => b,
      columns: [
        { header: 'CURRENT', value: (r) => r.current },
        { header: 'NAME', value: (r) => r.name },
        { header: 'SERVER', value: (r) => r.server },
        { header: 'AUTH', value: (r) => r.auth },
        { header: 'INSECURE', value: (r) => r.insecure, wide: true },
      ],
    });
  });
  action(sub(config, 'set-context <name>', 'Create or update a context (only the flags given change); the first context becomes current', [
    'queenctl config set-context local --server http://localhost:6632',
    'queenctl config set-context prod --server https://queen.prod:6632 --token "$JWT"',
    'queenctl config set-context ci --token-ref env',
  ])
    .option('--token-ref <ref>', 'env, keychain://<id>, file://<path>, literal:<jwt>')
    .option('--secure', 'verify TLS again for this context (undoes --insecure)')
    .option('--no-keychain', 'store --token as literal: in the file')
    .addHelpText('before', 'The context takes the global --server <url>, --token <jwt> (kept in the OS keychain, or literal: in the file\nwhere there is none) and --insecure given with this command.\n'), async (rt, optsIn, name) => {
    // --server, --token and --insecure are the global flags of the same names (commander parses them there).
    const opts: Opts = { ...optsIn, server: rt.flags.server, token: rt.flags.token, insecure: optsIn.secure ? false : rt.flags.insecure ? true : undefined };
    if (opts.server !== undefined && !/^https?:\/\//.test(opts.server)) throw userError(`invalid server URL "${opts.server}": must start with http:// or https://`);
    if (opts.token !== undefined && opts.tokenRef !== undefined) throw userError('give --token or --token-ref, not both');
    const file = await rt.loadConfig();
    let entry = file.contexts.find((c) => c.name === name);
    if (!entry) {
      entry = { name: name! } as ContextEntry;
      file.contexts.push(entry);
    }
    if (opts.server !== undefined) entry.server = opts.server;
    if (opts.insecure !== undefined) entry.insecure = opts.insecure;
    if (opts.tokenRef !== undefined) {
      forgetToken(entry['token-ref'], rt.env);
      entry['token-ref'] = opts.tokenRef;
    }
    if (opts.token !== undefined) entry['token-ref'] = storeToken(name!, opts.token, { noKeychain: opts.keychain === false, out: rt.out, env: rt.env });
    if (!file['current-context']) file['current-context'] = name;
    await rt.saveConfig(file);
    rt.out.done(`context "${name}" saved${file['current-context'] === name ? ' (current)' : ''}`);
  });
  action(sub(config, 'use-context <name>', 'Make a context current', 'queenctl config use-context prod'), async (rt, _o, name) => {
    const file = await rt.loadConfig();
    if (!file.contexts.some((c) => c.name === name)) throw userError(`unknown context "${name}" (known: ${file.contexts.map((c) => c.name).join(', ') || 'none'})`);
    file['current-context'] = name;
    await rt.saveConfig(file);
    rt.out.done(`switched to context "${name}"`);
  });
  action(sub(config, 'delete-context <name>', 'Delete a context (and its keychain entry)', 'queenctl config delete-context old', ['rm']), async (rt, _o, name) => {
    const file = await rt.loadConfig();
    const entry = file.contexts.find((c) => c.name === name);
    if (!entry) throw userError(`unknown context "${name}"`);
    forgetToken(entry['token-ref'], rt.env);
    file.contexts = file.contexts.filter((c) => c !== entry);
    if (file['current-context'] === name) delete file['current-context'];
    await rt.saveConfig(file);
    rt.out.done(`deleted context "${name}"`);
  });
}
