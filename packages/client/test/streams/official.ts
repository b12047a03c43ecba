/**
 * Where the official Queen JS client lives for the streams tests: `$QUEEN_COMPAT_DIR/queen-mq-js`, else
 * `<repo>/../shared/compat/queen-mq-js` (CI's clone has `../shared` beside the repo root; a worktree reaches it
 * through the `/work/wt/shared` link).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The official client's `client-v2` directory. */
export function officialDir(): string {
  const base = process.env.QUEEN_COMPAT_DIR ?? path.resolve(REPO_ROOT, '../shared/compat');
  const dir = path.join(base, 'queen-mq-js', 'client-v2');
  if (!fs.existsSync(path.join(dir, 'index.js'))) throw new Error(`the official Queen JS client is not at ${dir} (set QUEEN_COMPAT_DIR)`);
  return dir;
}

/** Imports a module of the official client by its path under client-v2. */
export async function officialModule<M = Record<string, any>>(relative: string): Promise<M> {
  return (await import(pathToFileURL(path.join(officialDir(), relative)).href)) as M;
}
