/**
 * The official Queen JS client (`queen-mq` client-v2, with its `Stream`) for the streams benchmark, loaded from
 * `$QUEEN_COMPAT_DIR/queen-mq-js` or `<repo>/../shared/compat/queen-mq-js`, with the shapes the benchmark uses.
 */
import fs from 'node:fs';
import { register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** A queue builder of the official client. */
export interface OfficialQueueBuilder {
  readonly name: string;
}

/** A user function of a chain: the official client passes untyped JS values. */
type Fn = (...args: any[]) => unknown;

/** A chain of the official `Stream`. */
export interface OfficialStream {
  map(fn: Fn): OfficialStream;
  windowTumbling(options: Record<string, unknown>): OfficialStream;
  aggregate(extractors: Record<string, Fn>): OfficialStream;
  to(queue: OfficialQueueBuilder): OfficialStream;
  run(options: Record<string, unknown>): Promise<OfficialHandle>;
}

/** A running stream. */
export interface OfficialHandle {
  stop(): Promise<void>;
  metrics(): { cyclesTotal: number; flushCyclesTotal: number; messagesTotal: number; errorsTotal: number; lastError: string | null };
}

/** The module's exports the benchmark uses. */
export interface OfficialModule {
  Queen: new (config: { url: string }) => { queue(name: string): OfficialQueueBuilder; close(): Promise<void> };
  Stream: { from(queue: OfficialQueueBuilder): OfficialStream };
}

let loaded: Promise<OfficialModule> | undefined;

/** Loads the official client once (registering the resolution hook first). */
export function loadOfficialClient(repoRoot: string): Promise<OfficialModule> {
  loaded ??= (async () => {
    const compat = fs.realpathSync(process.env['QUEEN_COMPAT_DIR'] ?? path.resolve(repoRoot, '../shared/compat'));
    const entry = path.join(compat, 'queen-mq-js', 'client-v2', 'index.js');
    if (!fs.existsSync(entry)) throw new Error(`the official Queen JS client is not at ${entry} (set QUEEN_COMPAT_DIR)`);
    register('./resolve-hook.js', import.meta.url, { data: { compatPrefix: pathToFileURL(compat).href, resolveFrom: import.meta.url } });
    return (await import(pathToFileURL(entry).href)) as OfficialModule;
  })();
  return loaded;
}
