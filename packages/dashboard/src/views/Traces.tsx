/**
 * Traces `/traces` (docs/dashboard.md): the recorded trace names (GET /traces/names) to pick from, the events of
 * one name (paged 50), the queue filter of `?queue=`, and a detail panel whose link opens the message.
 */
import { useState } from 'preact/hooks';
import { broker, http } from '../api.js';
import { Card, Empty, ErrorNote, Facts } from '../components/ui.js';
import { fmtCount, fmtTime } from '../format.js';
import { useLoad } from '../load.js';
import { useQueryState } from '../router.js';
import type { TraceRow } from '../types.js';

const PAGE = 50;
const dataText = (d: unknown): string => (typeof d === 'object' && d !== null && typeof (d as { text?: unknown }).text === 'string' ? (d as { text: string }).text : 'JSON data');

/** The traces page. */
export function TracesView() {
  const [query, setQuery] = useQueryState();
  const name = query.get('name') ?? '';
  const queue = query.get('queue') ?? '';
  const page = Number(query.get('page') ?? '0') || 0;
  const [text, setText] = useState(name);
  const [selected, setSelected] = useState<TraceRow | null>(null);
  const names = useLoad(() => broker.listTraceNames(http(), { limit: 50 }), []);
  const traces = useLoad(async () => (name === '' ? null : broker.listTracesByName(http(), name, { limit: PAGE, offset: page * PAGE })), [name, page]);
  const rows = (traces.data?.traces ?? []).filter((t) => queue === '' || t.queue_name === queue);
  const total = traces.data?.total ?? 0;
  return (
    <div class="stack">
      <form class="toolbar" onSubmit={(e) => { e.preventDefault(); setQuery({ name: text.trim(), page: null }); }}>
        <input class="search" data-testid="trace-search" placeholder="Trace name" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
        <button type="submit" class="btn primary">Search</button>
        <button type="button" class="btn plain" onClick={() => { setText(''); setQuery({ name: null, page: null, queue: null }); }}>Clear</button>
        {queue !== '' && <span class="chip">queue: {queue} <button type="button" class="btn plain small" onClick={() => setQuery({ queue: null })}>×</button></span>}
      </form>
      <div class="chips" data-testid="trace-names">
        {(names.data?.trace_names ?? []).map((n) => (
          <button type="button" key={n.trace_name} class={`chip click ${n.trace_name === name ? 'on' : ''}`} onClick={() => { setText(n.trace_name); setQuery({ name: n.trace_name, page: null }); }}>
            {n.trace_name} <span class="muted">{fmtCount(n.trace_count)}</span>
          </button>
        ))}
      </div>
      <ErrorNote error={traces.error ?? names.error} />
      {name === '' ? <Empty>Pick a trace name above or type one to see its events.</Empty> : traces.data === undefined || traces.data === null ? <div class="skeleton" /> : rows.length === 0 ? <Empty>No traces found</Empty> : (
        <Card title="Events">
          <div class="strip">
            <div class="stat"><div class="stat-label">Traces</div><div class="stat-value" data-testid="trace-total">{fmtCount(total)}</div></div>
            <div class="stat"><div class="stat-label">Unique messages</div><div class="stat-value" data-testid="trace-messages">{fmtCount(new Set(rows.map((t) => t.transaction_id)).size)}</div></div>
            <div class="stat"><div class="stat-label">Queues</div><div class="stat-value">{fmtCount(new Set(rows.map((t) => t.queue_name)).size)}</div></div>
          </div>
          <table class="list" data-testid="trace-table"><thead><tr><th>Event</th><th>Time</th><th>Queue</th><th>Partition</th><th>Transaction</th><th>Trace names</th><th>Data</th><th>Worker / group</th></tr></thead><tbody>
            {rows.map((t) => (
              <tr key={t.id} class="click" data-testid="trace-row" onClick={() => setSelected(t)}>
                <td><span class={`ev-dot ${t.event_type}`} />{t.event_type}</td><td>{fmtTime(t.created_at)}</td><td>{t.queue_name}</td><td>{t.partition_name}</td>
                <td class="mono">{t.transaction_id.slice(0, 8)}</td><td>{t.trace_names.map((n) => <span key={n} class={`chip ${n === name ? 'on' : ''}`}>{n}</span>)}</td>
                <td>{dataText(t.data)}</td><td class="muted">{t.worker_id ?? '–'} / {t.consumer_group ?? '–'}</td>
              </tr>
            ))}
          </tbody></table>
          <div class="pager">
            <button type="button" class="btn plain" disabled={page === 0} onClick={() => setQuery({ page: page <= 1 ? null : String(page - 1) })}>Prev</button>
            <span class="muted" data-testid="trace-range">Showing {page * PAGE + 1}–{page * PAGE + (traces.data?.traces.length ?? 0)} of {fmtCount(total)}</span>
            <button type="button" class="btn plain" disabled={(page + 1) * PAGE >= total} onClick={() => setQuery({ page: String(page + 1) })}>Next</button>
          </div>
        </Card>
      )}
      {selected !== null && (
        <aside class="panel" data-testid="trace-panel">
          <header class="modal-head"><h2>Trace event</h2><button type="button" class="btn plain" aria-label="Close" onClick={() => setSelected(null)}>×</button></header>
          <Facts rows={[['Event', selected.event_type], ['Time', fmtTime(selected.created_at)], ['Queue / partition', `${selected.queue_name} / ${selected.partition_name}`], ['Transaction ID', <span class="mono">{selected.transaction_id}</span>], ['Group', selected.consumer_group ?? '–'], ['Worker', selected.worker_id ?? '–'], ['Trace names', selected.trace_names.join(', ')]]} />
          <pre class="json">{JSON.stringify(selected.data, null, 2)}</pre>
          <a class="btn primary" data-testid="view-message" href={`/messages?partitionId=${encodeURIComponent(selected.partition_id)}&transactionId=${encodeURIComponent(selected.transaction_id)}&range=7d`}>View full message</a>
        </aside>
      )}
    </div>
  );
}
