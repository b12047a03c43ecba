/**
 * The request a piece of work is done for, as far as the work needs to know: its abort signal, which fires
 * when the client goes away before its answer is written. The HTTP layer runs each handler inside a scope
 * (`withRequestSignal`); code far below it (the admission of administrative reads to the pool, boot/admission.ts)
 * reads the signal without it being threaded through every catalog signature.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<AbortSignal>();

/** Runs `work` as part of the request whose abort signal is `signal`. */
export function withRequestSignal<T>(signal: AbortSignal, work: () => T): T {
  return scope.run(signal, work);
}

/** The abort signal of the request the current work is done for; undefined outside a request (background services). */
export function requestSignal(): AbortSignal | undefined {
  return scope.getStore();
}
