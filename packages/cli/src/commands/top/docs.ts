/** `docs` (docs/cli.md): where the documentation is, or open a page. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { action, sub } from '../../command.js';
import { userError } from '../../errors.js';

const DOC_TOPICS: Record<string, string> = {
  cli: 'the queenctl command reference',
  client: 'the TypeScript client SDK',
  operations: 'authentication, maintenance, the failover buffer, retention, encryption',
  monitoring: 'metrics, status and analytics routes',
  'consumer-groups': 'groups, subscription modes, lag, replay with seek',
  dlq: 'the dead-letter queue',
  transactions: 'exactly-once hand-off between queues in one transaction',
  configuration: 'every environment variable of the broker',
  architecture: 'how the broker is built',
};

/** The repository's docs/ folder next to this package, when installed from the repository. */
function docsDir(): string | undefined {
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs');
  return fs.existsSync(dir) ? dir : undefined;
}


/** Registers `docs`. */
export function registerDocs(program: Command): void {
  action(sub(program, 'docs', 'Print where the documentation is; --open opens it', ['queenctl docs', 'queenctl docs --topic dlq --open'])
    .option('--open', 'open the page in a browser or viewer')
    .option('--topic <name>', `one page: ${Object.keys(DOC_TOPICS).join(', ')}`), async (rt, opts) => {
    const dir = docsDir();
    const where = (topic: string) => (dir ? path.join(dir, `${topic}.md`) : `docs/${topic}.md in the Queen repository`);
    if (opts.topic !== undefined && !(opts.topic in DOC_TOPICS)) throw userError(`unknown topic "${opts.topic}" (topics: ${Object.keys(DOC_TOPICS).join(', ')})`);
    if (opts.open) {
      const target = where(opts.topic ?? 'cli');
      if (!dir) throw userError(`no local documentation found; read ${target}`);
      const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
      await new Promise<void>((resolve, reject) => {
        const child = spawn(opener, [target], { stdio: 'ignore', detached: true });
        child.once('error', () => reject(userError(`cannot run ${opener} to open ${target}`)));
        child.once('spawn', () => {
          child.unref();
          resolve();
        });
      });
      return rt.out.done(`opened ${target}`);
    }
    const topics = opts.topic ? [opts.topic as string] : Object.keys(DOC_TOPICS);
    for (const t of topics) rt.out.write(`${t.padEnd(16)}${where(t)}  (${DOC_TOPICS[t]})\n`);
  });
}
