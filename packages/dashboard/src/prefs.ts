/**
 * Viewer preferences kept in localStorage: pause auto-refresh, and show times in UTC instead of local time.
 */
import { createStore } from './store.js';

/** What the viewer chose. */
export interface Prefs {
  /** Auto-refresh (the 30 s polls) paused; the Refresh button still works. */
  paused: boolean;
  /** Times in UTC rather than the browser's zone. */
  utc: boolean;
}

const KEY = 'queen.dashboard.prefs';

function read(): Prefs {
  try {
    const raw: unknown = JSON.parse(localStorage.getItem(KEY) ?? '{}');
    const o = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
    return { paused: o.paused === true, utc: o.utc === true };
  } catch {
    return { paused: false, utc: false };
  }
}

/** The preferences store. */
export const prefs = createStore<Prefs>(read());

/** Changes some preferences and remembers them. */
export function setPrefs(patch: Partial<Prefs>): void {
  const next = { ...prefs.get(), ...patch };
  try {
    localStorage.setItem(KEY, JSON.stringify(next));
  } catch {
    // storage unavailable: the choice lasts for this page only
  }
  prefs.set(next);
}
