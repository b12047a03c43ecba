/**
 * Graceful shutdown on SIGINT/SIGTERM (docs/client.md). One process-wide handler serves every `Queen`
 * instance: it is installed when the first instance registers and removed when the last one leaves, so many
 * clients never pile up listeners. Node is reached through `globalThis.process` (runtime detection), never
 * an import; in browsers this module does nothing.
 */
import { nodeProcess } from './log.js';

/** What the shared handler needs from a client. */
export interface Closable {
  close(): Promise<void>;
  readonly logger: { info(msg: string, meta?: object): void; error(msg: string, meta?: object): void };
}

interface SignalProcess {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
  exit(code?: number): never;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const members = new Set<Closable>();
let shuttingDown = false;

function signalProcess(): SignalProcess | undefined {
  const proc = nodeProcess<Partial<SignalProcess>>();
  return proc && typeof proc.on === 'function' && typeof proc.off === 'function' && typeof proc.exit === 'function' ? (proc as SignalProcess) : undefined;
}

async function onSignal(signal: unknown): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  const clients = [...members];
  for (const client of clients) client.logger.info('signal received, closing client', { signal });
  await Promise.allSettled(clients.map((c) => c.close().catch((error: unknown) => c.logger.error('close failed', { error: String(error) }))));
  signalProcess()?.exit(0);
}

const listener = (signal: unknown) => void onSignal(signal);

/** Adds a client to the shared handler (installing it on first use). */
export function registerShutdown(client: Closable): void {
  const proc = signalProcess();
  if (!proc || members.has(client)) return;
  if (members.size === 0) for (const s of SIGNALS) proc.on(s, listener);
  members.add(client);
}

/** Removes a client; the handler is uninstalled when no client is left. */
export function unregisterShutdown(client: Closable): void {
  const proc = signalProcess();
  if (!members.delete(client) || !proc) return;
  if (members.size === 0) for (const s of SIGNALS) proc.off(s, listener);
}

/** Number of clients the shared handler would close (for tests and diagnostics). */
export function registeredClients(): number {
  return members.size;
}
