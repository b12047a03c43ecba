/**
 * The config file (docs/cli.md): `~/.queen/config.yaml`, or `$QUEEN_CONFIG`, or `--config`. A missing file is an
 * empty config. Writes are atomic (temp file + rename) with directory mode 0700 and file mode 0600, because a
 * `literal:` token may be in it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { userError } from './errors.js';
import { loadYaml } from './output.js';

/** One named context. */
export interface ContextEntry {
  name: string;
  server?: string;
  'token-ref'?: string;
  insecure?: boolean;
}

/** The whole file. */
export interface ConfigFile {
  'current-context'?: string;
  contexts: ContextEntry[];
}

/** The config path: `--config`, else `$QUEEN_CONFIG`, else `$HOME/.queen/config.yaml`. */
export function configPath(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag ?? env.QUEEN_CONFIG ?? path.join(env.HOME ?? os.homedir(), '.queen', 'config.yaml');
}

/** Reads the file (empty config when missing); exit 1 when it is not a valid config. */
export async function loadConfig(file: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { contexts: [] };
    throw userError(`cannot read config ${file}: ${(error as Error).message}`);
  }
  const { parse } = await loadYaml();
  let doc: unknown;
  try {
    doc = parse(text) ?? {};
  } catch (error) {
    throw userError(`config ${file} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw userError(`config ${file}: expected a mapping at the top`);
  const raw = doc as Record<string, unknown>;
  const contexts = raw.contexts ?? [];
  if (!Array.isArray(contexts)) throw userError(`config ${file}: contexts must be a list`);
  const entries = contexts.map((c, i): ContextEntry => {
    if (typeof c !== 'object' || c === null || typeof (c as ContextEntry).name !== 'string') throw userError(`config ${file}: contexts[${i}] needs a name`);
    const e = c as Record<string, unknown>;
    return {
      name: e.name as string,
      ...(typeof e.server === 'string' ? { server: e.server } : {}),
      ...(typeof e['token-ref'] === 'string' ? { 'token-ref': e['token-ref'] } : {}),
      ...(typeof e.insecure === 'boolean' ? { insecure: e.insecure } : {}),
    };
  });
  const current = raw['current-context'];
  return { ...(typeof current === 'string' && current !== '' ? { 'current-context': current } : {}), contexts: entries };
}

/** Writes the file atomically (0700 directory, 0600 file). */
export async function saveConfig(file: string, config: ConfigFile): Promise<void> {
  const { stringify } = await loadYaml();
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  const body: Record<string, unknown> = {};
  if (config['current-context']) body['current-context'] = config['current-context'];
  body.contexts = config.contexts;
  fs.writeFileSync(tmp, stringify(body), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** The AUTH column of `config get-contexts`: what kind of token reference a context has. */
export function authKind(ref: string | undefined): 'none' | 'env' | 'keychain' | 'file' | 'literal' {
  if (!ref) return 'none';
  if (ref === 'env') return 'env';
  if (ref.startsWith('keychain://')) return 'keychain';
  if (ref.startsWith('file://')) return 'file';
  return 'literal';
}
