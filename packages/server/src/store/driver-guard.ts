/**
 * The database driver never takes the process down. node-postgres parses the server's messages inside the
 * socket's `data` listener; an exception there (a field past what a JavaScript string can hold,
 * ERR_STRING_TOO_LONG, or a malformed message) is thrown into the event loop, where nothing can catch it,
 * and the process exits. The guard wraps that listener: the exception destroys the connection it happened
 * on instead, which fails that connection's query with the error (an internal error for its request, the connection
 * dropped by the pool) and leaves every other connection and request alone.
 */
import pg from 'pg';

type Listener = (...args: unknown[]) => void;
interface Stream {
  on(event: string, listener: Listener): unknown;
  destroy(error?: Error): void;
}
interface ConnectionPrototype {
  attachListeners(this: unknown, stream: Stream): unknown;
  queenGuarded?: boolean;
}

/** Installs the guard on the driver's connections (idempotent; connections made afterwards are guarded). */
export function guardDriverExceptions(): void {
  const prototype = (pg as unknown as { Connection: { prototype: ConnectionPrototype } }).Connection.prototype;
  if (prototype.queenGuarded === true) return;
  const attach = prototype.attachListeners;
  prototype.attachListeners = function attachGuarded(this: unknown, stream: Stream): unknown {
    const guarded = Object.create(stream) as Stream;
    guarded.on = (event, listener) =>
      stream.on(event, event !== 'data' ? listener : (...args: unknown[]) => {
        try {
          listener(...args);
        } catch (error) {
          stream.destroy(error instanceof Error ? error : new Error(String(error)));
        }
      });
    return attach.call(this, guarded);
  };
  prototype.queenGuarded = true;
}
