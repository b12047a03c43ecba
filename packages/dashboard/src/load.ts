/**
 * Loading data for a view: old data stays on screen while reloading, a failed reload keeps the last good data
 * and marks it stale, the header's refresh button reloads every mounted loader, and views marked "polls"
 * reload every 30 s (docs/dashboard.md).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { prefs } from './prefs.js';
import { createStore, useStore } from './store.js';

/** Bumped by the header's refresh button (and after mutations): every loader reloads. */
export const refreshTick = createStore(0);

/** Asks every mounted loader to reload. */
export const refreshAll = (): void => refreshTick.set(refreshTick.get() + 1);

/** What a loader hands its view. */
export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  /** True while the first load runs (skeletons only then). */
  loading: boolean;
  /** When the data on screen was fetched (ms), or null. */
  at: number | null;
  reload(): void;
}

/** Poll interval of the views marked "polls". */
export const POLL_MS = 30_000;

/** Runs `loader` on mount, when `deps` change, on refresh and (with `pollMs`) periodically. */
export function useLoad<T>(loader: () => Promise<T>, deps: unknown[], pollMs?: number): Loaded<T> {
  const tick = useStore(refreshTick);
  const [state, setState] = useState<{ data: T | undefined; error: string | null; at: number | null; loading: boolean }>({ data: undefined, error: null, at: null, loading: true });
  const [manual, setManual] = useState(0);
  const generation = useRef(0);
  useEffect(() => {
    const mine = ++generation.current;
    let cancelled = false;
    const run = (): void => {
      loader().then(
        (data) => {
          if (!cancelled && mine === generation.current) setState({ data, error: null, at: Date.now(), loading: false });
        },
        (error: unknown) => {
          if (!cancelled && mine === generation.current) setState((s) => ({ ...s, error: (error as Error).message, loading: false }));
        },
      );
    };
    run();
    const timer = pollMs === undefined ? undefined : setInterval(() => {
      if (!prefs.get().paused) run();
    }, pollMs);
    return () => {
      cancelled = true;
      if (timer !== undefined) clearInterval(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick, manual]);
  return { ...state, reload: () => setManual((n) => n + 1) };
}

/** Re-renders every second (for "N s ago" tickers). */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
