/**
 * Messages `/messages` (docs/dashboard.md): filters in the URL (queue, partition, status, limit, range), a
 * page of messages newest first, and the side panel for one message (also opened by `?partitionId&transactionId`
 * from a trace link).
 */
import { broker, filters, http } from '../api.js';
import { queueList } from '../cache.js';
import { MessagePanel } from '../components/MessagePanel.js';
import { Card, Empty, ErrorNote, RangePicker, Select, TextInput } from '../components/ui.js';
import { fmtBytes, fmtCount, fmtTime } from '../format.js';
import { useLoad } from '../load.js';
import { useQueryState } from '../router.js';
import { rangeParams } from '../series.js';
import type { MessageRow, MessageStatus } from '../types.js';

const STATUSES = ['pending', 'processing', 'completed', 'dead_letter'];

/** Characters of each payload the list asks for (the broker caps `preview` at 1000). */
export const PREVIEW_CHARS = 160;

/** The preview cell: the payload's JSON text as sent, cut at PREVIEW_CHARS with "…" and the full size. */
function previewText(m: MessageRow): string {
  if (m.payloadPreview === undefined) return '';
  if (m.payloadPreview === null) return '(encrypted: cannot be opened)';
  return m.payloadTruncated === true ? `${m.payloadPreview}… (${fmtBytes(m.payloadBytes ?? 0)})` : m.payloadPreview;
}

/** The message browser. */
export function MessagesView() {
  const [query, setQuery] = useQueryState();
  const queue = query.get('queue') ?? '';
  const partition = query.get('partition') ?? '';
  const status = query.get('status') ?? '';
  const limit = Number(query.get('limit') ?? '100') || 100;
  const offset = Number(query.get('offset') ?? '0') || 0;
  const range = query.get('range') ?? '1h';
  const idSearch = query.get('id') ?? '';
  const panel = query.get('partitionId') !== null && query.get('transactionId') !== null ? { partitionId: query.get('partitionId')!, transactionId: query.get('transactionId')! } : null;
  const queues = useLoad(() => queueList(), []);
  const list = useLoad(() => broker.listMessages(http(), { ...filters({ queue, partition, status: (status || undefined) as MessageStatus | undefined, limit, offset }), preview: PREVIEW_CHARS, ...rangeParams(range) }), [queue, partition, status, limit, offset, range]);
  const needle = idSearch.trim().toLowerCase();
  const rows = (list.data?.messages ?? []).filter((m) => needle === '' || m.transactionId.toLowerCase().includes(needle) || m.id.toLowerCase().includes(needle));
  const mode = list.data?.mode;
  return (
    <div class={`stack ${panel !== null ? 'with-panel' : ''}`}>
      <div class="toolbar">
        <TextInput label="ID" value={idSearch} onInput={(v) => setQuery({ id: v })} placeholder="transaction or message id" />
        <Select label="Queue" value={queue} testid="msg-queue" options={[{ value: '', label: 'All queues' }, ...(queues.data ?? []).map((q) => ({ value: q.name, label: q.name }))]} onChange={(v) => setQuery({ queue: v, offset: null })} />
        <TextInput label="Partition" value={partition} onInput={(v) => setQuery({ partition: v, offset: null })} testid="msg-partition" />
        <Select label="Status" value={status} testid="msg-status" options={[{ value: '', label: 'Any' }, ...STATUSES.map((s) => ({ value: s, label: s }))]} onChange={(v) => setQuery({ status: v, offset: null })} />
        <Select label="Limit" value={String(limit)} options={['50', '100', '200', '500'].map((v) => ({ value: v, label: v }))} onChange={(v) => setQuery({ limit: v === '100' ? null : v, offset: null })} />
        <RangePicker value={range} options={['1h', '24h', '7d']} onChange={(v) => setQuery({ range: v === '1h' ? null : v, offset: null })} />
        <button type="button" class="btn plain" onClick={() => setQuery({ queue: null, partition: null, status: null, limit: null, offset: null, range: null, id: null })}>Clear</button>
      </div>
      {mode?.type === 'bus' && <div class="banner">Bus Mode Active · {mode.busGroupsCount} consumer group(s)</div>}
      <ErrorNote error={list.error} stale={list.data !== undefined} />
      <div class="split">
        <Card title={pageTitle(offset, list.data?.messages.length ?? 0, limit, rows.length)} testid="message-card">
          {list.data === undefined ? <div class="skeleton" /> : rows.length === 0 ? <Empty>No messages found</Empty> : (
            <table class="list" data-testid="message-table"><thead><tr><th>Queue</th><th>Partition</th><th>Transaction ID</th><th>Payload</th><th>Created</th><th>Status</th></tr></thead><tbody>
              {rows.map((m) => (
                <tr key={`${m.partitionId}/${m.transactionId}`} class="click" data-testid="message-row" onClick={() => setQuery({ partitionId: m.partitionId, transactionId: m.transactionId })}>
                  <td>{m.queue}</td><td>{m.partition}</td><td class="mono">{m.transactionId}</td><td class="mono preview" data-testid="payload-preview" title={m.payloadTruncated === true ? `first ${PREVIEW_CHARS} characters of ${fmtBytes(m.payloadBytes ?? 0)}: open the message for the whole payload` : undefined}>{previewText(m)}</td><td class="nowrap">{fmtTime(m.createdAt)}</td>
                  <td><span class={`chip ${m.status === 'dead_letter' ? 'bad' : m.status === 'processing' ? 'warn' : m.status === 'completed' ? 'ok' : ''}`}>{m.status}</span>{m.busStatus !== null && m.busStatus.totalGroups > 0 && <span class="muted"> {m.busStatus.consumedBy}/{m.busStatus.totalGroups} groups</span>}</td>
                </tr>
              ))}
            </tbody></table>
          )}
          <div class="pager">
            <button type="button" class="btn plain" disabled={offset === 0} onClick={() => setQuery({ offset: offset - limit <= 0 ? null : String(offset - limit) })}>Prev</button>
            <span class="muted">from {offset + 1}</span>
            <button type="button" class="btn plain" data-testid="next-page" disabled={(list.data?.messages.length ?? 0) < limit} onClick={() => setQuery({ offset: String(offset + limit) })}>Next</button>
          </div>
        </Card>
        {panel !== null && <MessagePanel key={`${panel.partitionId}/${panel.transactionId}`} {...panel} onClose={() => setQuery({ partitionId: null, transactionId: null })} onChanged={list.reload} />}
      </div>
    </div>
  );
}

/**
 * The list's title: the whole count when everything fits on one page, else the page's place ("Messages 101–200,
 * more on the next page"): a full page is the page size, not how many messages there are.
 */
function pageTitle(offset: number, received: number, limit: number, shown: number): string {
  const filtered = shown < received ? ` (${fmtCount(shown)} match the ID)` : '';
  if (offset === 0 && received < limit) return `Messages (${fmtCount(received)})${filtered}`;
  const more = received >= limit ? ', more on the next page' : '';
  return received === 0 ? `Messages: none from ${fmtCount(offset + 1)}` : `Messages ${fmtCount(offset + 1)}–${fmtCount(offset + received)}${more}${filtered}`;
}
