/** Small shared pieces: cards, figures, role-aware buttons, modals, range pickers, sparklines. */
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { createPortal } from 'preact/compat';
import { asCurl } from '../api.js';
import { allows, session, type Role } from '../session.js';
import { useStore } from '../store.js';
import { toast } from './toasts.js';

/** A titled panel. */
export function Card(props: { title?: string; actions?: ComponentChildren; children: ComponentChildren; class?: string; testid?: string }) {
  return (
    <section class={`card ${props.class ?? ''}`} data-testid={props.testid}>
      {(props.title !== undefined || props.actions !== undefined) && (
        <header class="card-head"><h2>{props.title}</h2><div class="card-actions">{props.actions}</div></header>
      )}
      {props.children}
    </section>
  );
}

/** One labelled figure; `testid` lets tests read the number. */
export function Stat(props: { label: string; value: string; testid?: string; tone?: 'ok' | 'warn' | 'bad' | undefined; href?: string; hint?: string }) {
  const body = (
    <>
      <div class="stat-label">{props.label}</div>
      <div class={`stat-value ${props.tone ?? ''}`} data-testid={props.testid}>{props.value}</div>
      {props.hint !== undefined && <div class="stat-hint">{props.hint}</div>}
    </>
  );
  return props.href !== undefined ? <a class="stat" href={props.href}>{body}</a> : <div class="stat">{body}</div>;
}

/** A button that is disabled (with the reason) when the token's role is below `needs`. */
export function Action(props: { needs: Role; onClick: () => void; children: ComponentChildren; kind?: 'primary' | 'danger' | 'plain'; testid?: string; disabled?: boolean; title?: string }) {
  const s = useStore(session);
  const allowed = allows(s, props.needs);
  return (
    <button
      type="button"
      class={`btn ${props.kind ?? 'plain'}`}
      data-testid={props.testid}
      disabled={!allowed || props.disabled === true}
      title={allowed ? props.title : `needs ${props.needs}`}
      onClick={props.onClick}
    >{props.children}</button>
  );
}

/**
 * Row actions collapsed behind one button, so a row stays as narrow as a laptop screen allows. The menu opens
 * in a layer on top of the page (a portal on document.body): the virtualised table's clipping cannot cut it.
 * Choosing an item, clicking elsewhere, scrolling or resizing closes it.
 */
export function RowMenu(props: { label?: string; testid?: string; children: ComponentChildren }) {
  const [at, setAt] = useState<{ top: number; right: number } | null>(null);
  useEffect(() => {
    if (at === null) return;
    const close = (): void => setAt(null);
    window.addEventListener('scroll', close, true);
    window.addEventListener('resize', close);
    return () => {
      window.removeEventListener('scroll', close, true);
      window.removeEventListener('resize', close);
    };
  }, [at]);
  const toggle = (e: MouseEvent): void => {
    const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
    setAt(at === null ? { top: r.bottom + 4, right: Math.max(8, window.innerWidth - r.right) } : null);
  };
  return (
    <>
      <button type="button" class="btn plain small" data-testid={props.testid} aria-haspopup="menu" aria-expanded={at !== null} onClick={toggle}>{props.label ?? 'Actions'} ▾</button>
      {at !== null && createPortal(
        <div class="menu-layer" onClick={() => setAt(null)}>
          <div class="row-menu" role="menu" style={{ top: `${at.top}px`, right: `${at.right}px` }}>{props.children}</div>
        </div>,
        document.body,
      )}
    </>
  );
}

/** An empty-state line. */
export const Empty = (props: { children: ComponentChildren }) => <div class="empty" data-testid="empty">{props.children}</div>;

/** Error text shown above stale data. */
export function ErrorNote(props: { error: string | null; stale?: boolean }) {
  if (props.error === null) return null;
  return <div class="note bad" data-testid="load-error">{props.stale === true ? 'Showing stale data: ' : ''}{props.error}</div>;
}

/** A modal dialog with a title, body and footer. */
export function Modal(props: { title: string; onClose: () => void; children: ComponentChildren; footer?: ComponentChildren; wide?: boolean }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') props.onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [props.onClose]);
  return (
    <div class="modal-backdrop" onClick={(e) => e.target === e.currentTarget && props.onClose()}>
      <div class={`modal ${props.wide === true ? 'wide' : ''}`} role="dialog" aria-label={props.title} data-testid="modal">
        <header class="modal-head"><h2>{props.title}</h2><button type="button" class="btn plain" aria-label="Close" onClick={props.onClose}>×</button></header>
        <div class="modal-body">{props.children}</div>
        {props.footer !== undefined && <footer class="modal-foot">{props.footer}</footer>}
      </div>
    </div>
  );
}

/** The request an action will send, for the confirm modal and "copy as curl". */
export interface PlannedCall { method: string; path: string; body?: unknown }

/** Copies text to the clipboard and says so. */
export function copy(text: string, what = 'Copied'): void {
  void navigator.clipboard?.writeText(text).then(() => toast(what), () => toast('Clipboard unavailable', 'bad'));
}

/**
 * A confirmation modal for a mutation: what happens, the call it sends (copy as curl), and, for destructive
 * ones, a typed-name confirmation. `run` returns the toast text of success; its error is shown inline.
 */
export function Confirm(props: { title: string; children?: ComponentChildren; call: PlannedCall; typeToConfirm?: string; confirmLabel?: string; danger?: boolean; run: () => Promise<string>; onClose: () => void; onDone?: () => void }) {
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const blocked = props.typeToConfirm !== undefined && typed !== props.typeToConfirm;
  const go = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const text = await props.run();
      toast(text);
      props.onClose();
      props.onDone?.();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal title={props.title} onClose={props.onClose} footer={
      <>
        <button type="button" class="btn plain" onClick={() => copy(asCurl(props.call.method, props.call.path, props.call.body), 'curl command copied')}>Copy as curl</button>
        <span class="grow" />
        <button type="button" class="btn plain" onClick={props.onClose}>Cancel</button>
        <button type="button" class={`btn ${props.danger === true ? 'danger' : 'primary'}`} data-testid="confirm" disabled={blocked || busy} onClick={() => void go()}>{props.confirmLabel ?? 'Confirm'}</button>
      </>
    }>
      {props.children}
      <code class="call" data-testid="planned-call">{props.call.method} {props.call.path}{props.call.body !== undefined ? ` ${JSON.stringify(props.call.body)}` : ''}</code>
      {props.typeToConfirm !== undefined && (
        <label class="field">Type <b>{props.typeToConfirm}</b> to confirm
          <input data-testid="type-to-confirm" value={typed} onInput={(e) => setTyped((e.target as HTMLInputElement).value)} />
        </label>
      )}
      {error !== null && <div class="note bad" data-testid="action-error">{error}</div>}
    </Modal>
  );
}

/** A row of range buttons. */
export function RangePicker(props: { value: string; options: string[]; onChange: (value: string) => void }) {
  return (
    <div class="seg" role="group" aria-label="Time range">
      {props.options.map((o) => (
        <button type="button" key={o} class={o === props.value ? 'on' : ''} aria-pressed={o === props.value} onClick={() => props.onChange(o)}>{o}</button>
      ))}
    </div>
  );
}

/** A labelled select. */
export function Select(props: { label: string; value: string; options: { value: string; label: string }[]; onChange: (value: string) => void; testid?: string }) {
  return (
    <label class="field inline">{props.label}
      <select data-testid={props.testid} value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}>
        {props.options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    </label>
  );
}

/** A tiny SVG line of a series (nulls are gaps). */
export function Sparkline(props: { values: (number | null)[]; width?: number; height?: number }) {
  const w = props.width ?? 120;
  const h = props.height ?? 28;
  const finite = props.values.filter((v): v is number => v !== null && Number.isFinite(v));
  if (finite.length === 0) return <svg class="spark" width={w} height={h} />;
  const lo = Math.min(...finite);
  const hi = Math.max(...finite);
  const n = Math.max(1, props.values.length - 1);
  let d = '';
  let pen = false;
  props.values.forEach((v, i) => {
    if (v === null || !Number.isFinite(v)) {
      pen = false;
      return;
    }
    const x = (i / n) * (w - 2) + 1;
    const y = h - 2 - (hi === lo ? (h - 4) / 2 : ((v - lo) / (hi - lo)) * (h - 4));
    d += `${pen ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)}`;
    pen = true;
  });
  return <svg class="spark" width={w} height={h} viewBox={`0 0 ${w} ${h}`}><path d={d} fill="none" stroke="currentColor" stroke-width="1.5" /></svg>;
}

/** A horizontal bar proportional to value/max. */
export const Bar = (props: { value: number; max: number; tone?: string }) => (
  <div class="bar"><div class={`bar-fill ${props.tone ?? ''}`} style={{ width: `${props.max > 0 ? Math.min(100, (props.value / props.max) * 100) : 0}%` }} /></div>
);

/** A key/value list. */
export function Facts(props: { rows: [string, ComponentChildren][]; testid?: string }) {
  return (
    <dl class="facts" data-testid={props.testid}>
      {props.rows.map(([k, v]) => <div key={k}><dt>{k}</dt><dd>{v}</dd></div>)}
    </dl>
  );
}

/** A text input bound to a value. */
export function TextInput(props: { label: string; value: string; onInput: (value: string) => void; placeholder?: string; testid?: string; type?: string } & Omit<JSX.HTMLAttributes<HTMLInputElement>, 'onInput' | 'value'>) {
  const { label, value, onInput, testid, ...rest } = props;
  return (
    <label class="field inline">{label}
      <input {...rest} data-testid={testid} value={value} onInput={(e) => onInput((e.target as HTMLInputElement).value)} />
    </label>
  );
}
