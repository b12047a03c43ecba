/**
 * History-mode routing: the location as a store, links intercepted, filters held in the query string so that
 * every view can be deep-linked and reloaded (the broker answers index.html for any non-API path).
 */
import { useEffect } from 'preact/hooks';
import { createStore, useStore } from './store.js';

/** The current path (still percent-encoded: a name may contain `/`, `?`, `#`...) and query. */
export interface Location {
  path: string;
  query: URLSearchParams;
}

const read = (): Location => ({ path: location.pathname, query: new URLSearchParams(location.search) });

/** Decodes one path segment (`decodeURI` would leave `%2F`, `%3F`, `%23`, `%3A`... encoded); null when malformed. */
export function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** The location store. */
export const currentLocation = createStore<Location>(read());

window.addEventListener('popstate', () => currentLocation.set(read()));

/** Goes to `to` (a path with an optional query), adding a history entry unless `replace`. */
export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  currentLocation.set(read());
  if (!replace) window.scrollTo(0, 0);
}

/** Same-origin `<a href="/...">` clicks become history navigations. */
document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const anchor = (event.target as Element | null)?.closest?.('a[href]');
  if (!(anchor instanceof HTMLAnchorElement) || anchor.target !== '' || anchor.origin !== location.origin) return;
  if (anchor.hasAttribute('download')) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
});

/** The location, re-rendering on change. */
export const useLocation = (): Location => useStore(currentLocation);

/** Query parameters of the current URL and a setter that replaces them (empty values removed). */
export function useQueryState(): [URLSearchParams, (patch: Record<string, string | null | undefined>) => void] {
  const loc = useLocation();
  const set = (patch: Record<string, string | null | undefined>): void => {
    const next = new URLSearchParams(location.search);
    for (const [key, value] of Object.entries(patch)) {
      if (value === null || value === undefined || value === '') next.delete(key);
      else next.set(key, value);
    }
    const text = next.toString();
    navigate(location.pathname + (text === '' ? '' : `?${text}`), true);
  };
  return [loc.query, set];
}

/** Sets the document title `<title> | Queen Dashboard`. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} | Queen Dashboard`;
  }, [title]);
}
