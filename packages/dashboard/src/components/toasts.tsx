/** Toasts instead of dialogs: success and error notes that fade after a few seconds. */
import { createStore, useStore } from '../store.js';

interface Toast { id: number; kind: 'ok' | 'bad'; text: string }

const toasts = createStore<Toast[]>([]);
let nextId = 1;

/** Shows a toast for 5 s. */
export function toast(text: string, kind: 'ok' | 'bad' = 'ok'): void {
  const id = nextId++;
  toasts.set([...toasts.get(), { id, kind, text }]);
  setTimeout(() => toasts.set(toasts.get().filter((t) => t.id !== id)), 5000);
}

/** The toast stack (bottom right). */
export function Toasts() {
  const list = useStore(toasts);
  return (
    <div class="toasts" role="status" aria-live="polite">
      {list.map((t) => <div key={t.id} class={`toast ${t.kind}`} data-testid="toast">{t.text}</div>)}
    </div>
  );
}
