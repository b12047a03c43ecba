/**
 * The shell (docs/dashboard.md): sidebar with the health dot, top bar with breadcrumb, jump search (Ctrl/Cmd+K),
 * refresh, push/pop maintenance toggles and their banners, and the token prompt when the broker answers 401.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, broker, http, planned } from '../api.js';
import { queueList } from '../cache.js';
import { fmtCount } from '../format.js';
import { refreshAll, useLoad } from '../load.js';
import { navigate, useLocation } from '../router.js';
import { prefs, setPrefs } from '../prefs.js';
import { allows, session, setToken } from '../session.js';
import { oidc, signIn, signOut } from '../oidc.js';
import { useStore } from '../store.js';
import type { GroupRow, Maintenance, QueueRow } from '../types.js';
import { toast } from './toasts.js';
import { Confirm } from './ui.js';

/** Sidebar groups and items. */
export const NAV: { group: string; items: { label: string; path: string }[] }[] = [
  { group: 'Overview', items: [{ label: 'Dashboard', path: '/' }, { label: 'Queue Operations', path: '/operations' }] },
  { group: 'Routing', items: [{ label: 'Queues', path: '/queues' }, { label: 'Consumers', path: '/consumers' }, { label: 'Messages', path: '/messages' }] },
  { group: 'Observability', items: [{ label: 'Traces', path: '/traces' }, { label: 'Analytics', path: '/analytics' }, { label: 'Dead letter', path: '/dlq' }] },
  { group: 'Infrastructure', items: [{ label: 'System', path: '/system' }, { label: 'Migration', path: '/migration' }] },
];

const active = (path: string, current: string): boolean => (path === '/' ? current === '/' : current === path || current.startsWith(`${path}/`));

function Sidebar(props: { collapsed: boolean; onToggle: () => void }) {
  const loc = useLocation();
  const s = useStore(session);
  const health = useLoad(async () => {
    // A 503 carries the same body (unhealthy or draining): the broker answered, so degraded, not offline.
    const status = await broker.health(http()).then((b) => b.status as string, (e: unknown) => {
      if (e instanceof ApiError && e.status !== 0) return 'unhealthy';
      throw e;
    });
    return status === 'healthy' || status === 'ok' ? 'healthy' : 'degraded';
  }, [], 30_000);
  const state = health.error !== null ? 'offline' : health.data ?? 'unknown';
  return (
    <nav class={`sidebar ${props.collapsed ? 'collapsed' : ''}`} aria-label="Main">
      <a class="brand" href="/"><span class={`dot ${state}`} data-testid="health-dot" title={`broker ${state}`} /><span class="brand-name">Queen</span></a>
      {NAV.map((g) => (
        <div class="nav-group" key={g.group}>
          <div class="nav-title">{g.group}</div>
          {g.items.map((item) => <a key={item.path} href={item.path} class={active(item.path, loc.path) ? 'on' : ''} aria-current={active(item.path, loc.path) ? 'page' : undefined}>{item.label}</a>)}
        </div>
      ))}
      <div class="sidebar-foot">
        {s.token !== null && <div class="who" data-testid="who" title={s.source === 'oidc' ? 'signed in with the identity provider' : 'pasted token'}>{s.subject ?? 'token'} · {s.role}<button type="button" class="btn plain small" data-testid="sign-out" onClick={() => void signOut()}>Log out</button></div>}
        <div class="muted">queen-dashboard 1.0.0</div>
        <button type="button" class="btn plain small" onClick={props.onToggle}>{props.collapsed ? '»' : '« Collapse'}</button>
      </div>
    </nav>
  );
}

function JumpSearch() {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [index, setIndex] = useState(0);
  const [data, setData] = useState<{ queues: QueueRow[]; groups: GroupRow[] }>({ queues: [], groups: [] });
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setOpen(true);
        setTimeout(() => input.current?.focus(), 0);
      }
      if (e.key === 'Escape') setOpen(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    if (!open) return;
    void Promise.all([queueList(), broker.listConsumerGroups(http())]).then(([queues, groups]) => setData({ queues, groups }), () => {});
  }, [open]);
  const needle = text.trim().toLowerCase();
  const hits = needle === '' ? [] : [
    ...data.queues.filter((q) => q.name.toLowerCase().includes(needle)).slice(0, 5).map((q) => ({ label: q.name, kind: 'queue', to: `/queues/${encodeURIComponent(q.name)}` })),
    ...[...new Set(data.groups.filter((g) => g.name !== '__QUEUE_MODE__' && g.name.toLowerCase().includes(needle)).map((g) => g.name))].slice(0, 5).map((g) => ({ label: g, kind: 'group', to: `/consumers?search=${encodeURIComponent(g)}` })),
  ];
  const go = (to: string): void => {
    setOpen(false);
    setText('');
    navigate(to);
  };
  return (
    <div class="jump">
      <input
        ref={input}
        data-testid="jump-search"
        placeholder="Jump to queue or group (Ctrl+K)"
        value={text}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onInput={(e) => { setText((e.target as HTMLInputElement).value); setIndex(0); }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') setIndex((i) => Math.min(hits.length - 1, i + 1));
          if (e.key === 'ArrowUp') setIndex((i) => Math.max(0, i - 1));
          if (e.key === 'Enter' && hits[index] !== undefined) go(hits[index]!.to);
        }}
      />
      {open && hits.length > 0 && (
        <ul class="jump-list" role="listbox">
          {hits.map((h, i) => <li key={h.to} role="option" aria-selected={i === index} class={i === index ? 'on' : ''} onMouseDown={() => go(h.to)}><span class="muted">{h.kind}</span> {h.label}</li>)}
        </ul>
      )}
    </div>
  );
}

function MaintenanceControls(props: { state: Maintenance | undefined; reload: () => void }) {
  const s = useStore(session);
  const [asking, setAsking] = useState<'push' | 'pop' | null>(null);
  const m = props.state;
  if (!allows(s, 'ADMIN') || m === undefined) return null;
  const push = m.maintenanceMode;
  const pop = m.popMaintenanceMode;
  return (
    <>
      <button type="button" class={`btn toggle ${push ? 'on' : ''}`} data-testid="toggle-push-maintenance" onClick={() => setAsking('push')}>Push maintenance {push ? 'ON' : 'off'}</button>
      <button type="button" class={`btn toggle ${pop ? 'on' : ''}`} data-testid="toggle-pop-maintenance" onClick={() => setAsking('pop')}>Pop maintenance {pop ? 'ON' : 'off'}</button>
      {asking !== null && (() => {
        const enabling = asking === 'push' ? !push : !pop;
        const route = asking === 'push' ? broker.routes.setMaintenance : broker.routes.setPopMaintenance;
        const what = asking === 'push'
          ? (enabling ? 'Pushes will be written to the durable file buffer instead of PostgreSQL.' : `${fmtCount(m.bufferedMessages)} buffered message(s) will drain into PostgreSQL.`)
          : (enabling ? 'Consumers will get nothing: every pop answers 204 paused.' : 'Pops will deliver messages again.');
        return (
          <Confirm title={`${enabling ? 'Enable' : 'Disable'} ${asking} maintenance`} call={planned(route, {}, undefined, { enabled: enabling })} onClose={() => setAsking(null)} onDone={props.reload}
            run={async () => { await (asking === 'push' ? broker.setMaintenance : broker.setPopMaintenance)(http('ADMIN'), enabling); return `${asking} maintenance ${enabling ? 'enabled' : 'disabled'}`; }}>
            <p>{what}</p>
          </Confirm>
        );
      })()}
    </>
  );
}

function Banners(props: { m: Maintenance | undefined }) {
  const m = props.m;
  if (m === undefined) return null;
  const failed = m.bufferStats.failedCount;
  return (
    <>
      {m.maintenanceMode && <div class="banner warn" data-testid="banner-push-maintenance">Push maintenance is on: pushes go to the file buffer ({fmtCount(m.bufferedMessages)} buffered).</div>}
      {m.popMaintenanceMode && <div class="banner warn" data-testid="banner-pop-maintenance">Pop maintenance is on: consumers receive nothing.</div>}
      {failed > 0 && <div class="banner bad">{fmtCount(failed)} buffered message(s) failed to replay ({m.bufferStats.failedFiles.totalMB} MB).</div>}
      {!m.maintenanceMode && !m.popMaintenanceMode && failed === 0 && m.bufferedMessages > 0 && <div class="banner">Still draining {fmtCount(m.bufferedMessages)} message(s) from the disk buffer.</div>}
    </>
  );
}

/** The token prompt: shown while the broker answers 401. */
function Login() {
  const [text, setText] = useState('');
  const s = useStore(session);
  const o = useStore(oidc);
  const paste = (
    <>
      <p>{o.provider === null ? 'This broker requires a JWT. ' : ''}Paste a bearer token; it is kept in this tab only (sessionStorage).</p>
      <textarea data-testid="token-input" rows={4} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} placeholder="eyJhbGciOi..." />
    </>
  );
  return (
    <div class="modal-backdrop">
      <form class="modal" data-testid="login" onSubmit={(e) => { e.preventDefault(); if (text.trim() !== '') { setToken(text.trim()); refreshAll(); } }}>
        <header class="modal-head"><h2>Sign in</h2></header>
        <div class="modal-body">
          {s.notice !== null && <div class="note warn" data-testid="login-notice">{s.notice}</div>}
          {o.error !== null && <div class="note bad" data-testid="oidc-error">{o.error}</div>}
          {s.token !== null && <div class="note bad" data-testid="login-error">The broker rejected the token (401). {o.provider === null ? 'Paste another one.' : 'Sign in again or paste another one.'}</div>}
          {o.provider !== null && (
            <p><button type="button" class="btn primary" data-testid="oidc-signin" disabled={o.busy} onClick={() => void signIn()}>Sign in with {o.provider}</button></p>
          )}
          {o.provider === null ? paste : <details data-testid="paste-token"><summary>Paste a token instead</summary>{paste}</details>}
        </div>
        <footer class="modal-foot"><span class="grow" /><button type="submit" class="btn primary" data-testid="login-submit">Use token</button></footer>
      </form>
    </div>
  );
}

/** The whole frame around a view. */
export function Shell(props: { title: string; children: ComponentChildren }) {
  const [collapsed, setCollapsed] = useState(false);
  const s = useStore(session);
  const p = useStore(prefs);
  const maintenance = useLoad(async () => {
    // ADMIN route: a lower token fails here silently (the toggles are simply not shown).
    if (!allows(session.get(), 'ADMIN')) return undefined;
    try {
      return await broker.getMaintenance(http('ADMIN'));
    } catch (error) {
      if (error instanceof ApiError && (error.status === 403 || error.status === 401)) return undefined;
      throw error;
    }
  }, [s.token, s.role], 30_000);
  return (
    <div class={`app ${collapsed ? 'nav-collapsed' : ''}`}>
      <Sidebar collapsed={collapsed} onToggle={() => setCollapsed(!collapsed)} />
      <div class="main">
        <header class="topbar">
          <button type="button" class="btn plain menu" aria-label="Menu" onClick={() => setCollapsed(!collapsed)}>☰</button>
          <div class="crumb"><span class="muted">Queen /</span> <span data-testid="page-title">{props.title}</span></div>
          <JumpSearch />
          <span class="grow" />
          <MaintenanceControls state={maintenance.data} reload={maintenance.reload} />
          <button type="button" class="btn plain small" data-testid="toggle-utc" title="Show times in UTC or local time" onClick={() => { setPrefs({ utc: !p.utc }); refreshAll(); }}>{p.utc ? 'UTC' : 'Local'}</button>
          <button type="button" class={`btn plain small ${p.paused ? 'paused' : ''}`} data-testid="toggle-auto-refresh" title="Pause or resume the 30 s auto-refresh" onClick={() => setPrefs({ paused: !p.paused })}>{p.paused ? 'Auto-refresh paused' : 'Auto-refresh 30s'}</button>
          <button type="button" class="btn plain" data-testid="refresh" onClick={() => { refreshAll(); toast('Refreshed'); }}>Refresh</button>
        </header>
        <Banners m={maintenance.data} />
        <main class="page">{props.children}</main>
      </div>
      {s.auth === 'needed' && <Login />}
    </div>
  );
}
