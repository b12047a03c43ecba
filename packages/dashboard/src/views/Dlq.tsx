/**
 * Dead letter `/dlq` (docs/dashboard.md): totals and top errors, server-side filters (queue, group, partition,
 * range) in the URL with paging by `total`, per-row requeue and purge, bulk requeue/purge of the filtered
 * entries, JSON export, and a detail panel. Polls every 30 s.
 */
import { useState } from 'preact/hooks';
import { broker, filters as present, http, planned } from '../api.js';
import { queueList } from '../cache.js';
import { Action, Bar, Card, Confirm, Empty, ErrorNote, Facts, Select, TextInput, copy } from '../components/ui.js';
import { fmtAgo, fmtCount, fmtTime } from '../format.js';
import { POLL_MS, refreshAll, useLoad } from '../load.js';
import { useQueryState } from '../router.js';
import type { DlqRow } from '../types.js';

const PAGE = 100;

/** Every entry matching the filters (paged 1000 at a time), for bulk actions and export. */
async function allEntries(filters: Record<string, string>): Promise<DlqRow[]> {
  const out: DlqRow[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await broker.listDlq(http(), { ...present(filters), limit: 1000, offset });
    out.push(...page.messages);
    if (page.messages.length < 1000 || out.length >= page.total) return out;
  }
}

/** The DLQ page. */
export function DlqView() {
  const [query, setQuery] = useQueryState();
  const queue = query.get('queue') ?? '';
  const group = query.get('consumerGroup') ?? '';
  const partition = query.get('partition') ?? '';
  const offset = Number(query.get('offset') ?? '0') || 0;
  const filters = { queue, consumerGroup: group, partition };
  const [selected, setSelected] = useState<DlqRow | null>(null);
  const [action, setAction] = useState<null | { kind: 'retry' | 'purge'; row: DlqRow } | { kind: 'bulk-retry' | 'bulk-purge' }>(null);
  const queues = useLoad(() => queueList(), []);
  const list = useLoad(() => broker.listDlq(http(), { ...present(filters), limit: PAGE, offset }), [queue, group, partition, offset], POLL_MS);
  const status = useLoad(() => broker.getStatus(http()), [], POLL_MS);
  const rows = list.data?.messages ?? [];
  const total = list.data?.total ?? 0;
  const dl = status.data?.deadLetterQueue;
  const topErrors = dl?.topErrors ?? [];
  const maxErr = Math.max(1, ...topErrors.map((e) => e.count));
  const ids = (r: DlqRow) => ({ partitionId: r.partitionId, transactionId: r.transactionId });
  const exportJson = async (): Promise<void> => {
    const all = await allEntries(filters);
    const blob = new Blob([JSON.stringify(all, null, 2)], { type: 'application/json' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `dlq${queue !== '' ? `-${queue}` : ''}.json`;
    a.click();
    URL.revokeObjectURL(a.href);
  };
  const after = (): void => {
    setSelected(null);
    refreshAll();
  };
  return (
    <div class="stack">
      <div class="strip" data-testid="dlq-stats">
        <div class="stat"><div class="stat-label">Total in DLQ</div><div class="stat-value bad" data-testid="dlq-total">{fmtCount(dl?.totalMessages)}</div></div>
        <div class="stat"><div class="stat-label">Affected partitions</div><div class="stat-value" data-testid="dlq-partitions">{fmtCount(dl?.affectedPartitions)}</div></div>
        <div class="stat"><div class="stat-label">Matching filters</div><div class="stat-value" data-testid="dlq-matching">{fmtCount(total)}</div></div>
        <div class="stat wide"><div class="stat-label">Top error</div><div class="stat-value small" data-testid="dlq-top-error">{topErrors[0]?.error ?? '–'}</div></div>
      </div>
      {topErrors.length > 0 && (
        <Card title="Top errors">
          <table class="list"><tbody>{topErrors.map((e) => <tr key={e.error}><td>{e.error}</td><td class="num">{fmtCount(e.count)}</td><td style={{ width: '40%' }}><Bar value={e.count} max={maxErr} tone="bad" /></td></tr>)}</tbody></table>
        </Card>
      )}
      <div class="toolbar">
        <Select label="Queue" value={queue} testid="dlq-queue" options={[{ value: '', label: 'All queues' }, ...(queues.data ?? []).map((q) => ({ value: q.name, label: q.name }))]} onChange={(v) => setQuery({ queue: v, offset: null })} />
        <TextInput label="Consumer group" value={group} onInput={(v) => setQuery({ consumerGroup: v, offset: null })} testid="dlq-group" />
        <TextInput label="Partition" value={partition} onInput={(v) => setQuery({ partition: v, offset: null })} />
        <span class="grow" />
        <button type="button" class="btn plain" data-testid="dlq-export" disabled={total === 0} onClick={() => void exportJson()}>Export JSON</button>
        <Action needs="READ_WRITE" testid="dlq-bulk-retry" disabled={total === 0} onClick={() => setAction({ kind: 'bulk-retry' })}>Requeue all {fmtCount(total)}</Action>
        <Action needs="READ_WRITE" kind="danger" testid="dlq-bulk-purge" disabled={total === 0} onClick={() => setAction({ kind: 'bulk-purge' })}>Purge all {fmtCount(total)}</Action>
      </div>
      <ErrorNote error={list.error} stale={list.data !== undefined} />
      <Card title={`Entries (${fmtCount(rows.length)} of ${fmtCount(total)})`}>
        {list.data === undefined ? <div class="skeleton" /> : rows.length === 0 ? <Empty>Dead letter queue is empty</Empty> : (
          <table class="list" data-testid="dlq-table"><thead><tr><th>Message</th><th>Queue</th><th>Consumer</th><th>Error</th><th class="num">Retries</th><th>Failed</th><th /></tr></thead><tbody>
            {rows.map((r) => (
              <tr key={`${r.id}/${r.consumerGroup}`} class="click" data-testid="dlq-row" onClick={() => setSelected(r)}>
                <td class="mono">{r.id.slice(0, 14)}</td><td>{r.queue}</td><td>{r.consumerGroup === '__QUEUE_MODE__' ? 'queue mode' : r.consumerGroup}</td>
                <td title={r.errorMessage ?? ''}>{(r.errorMessage ?? '–').slice(0, 50)}</td><td class="num">{r.retryCount}</td><td>{fmtAgo(r.failedAt)}</td>
                <td class="row-actions" onClick={(e) => e.stopPropagation()}>
                  <Action needs="READ_WRITE" testid="dlq-retry" onClick={() => setAction({ kind: 'retry', row: r })}>Requeue</Action>
                  <Action needs="READ_WRITE" kind="danger" testid="dlq-purge" onClick={() => setAction({ kind: 'purge', row: r })}>Purge</Action>
                </td>
              </tr>
            ))}
          </tbody></table>
        )}
        <div class="pager">
          <button type="button" class="btn plain" disabled={offset === 0} onClick={() => setQuery({ offset: offset - PAGE <= 0 ? null : String(offset - PAGE) })}>Prev</button>
          <span class="muted">{total === 0 ? 0 : offset + 1}–{offset + rows.length} of {fmtCount(total)}</span>
          <button type="button" class="btn plain" disabled={offset + PAGE >= total} onClick={() => setQuery({ offset: String(offset + PAGE) })}>Next</button>
        </div>
      </Card>
      {selected !== null && (
        <aside class="panel" data-testid="dlq-panel">
          <header class="modal-head"><h2>DLQ entry</h2><button type="button" class="btn plain" aria-label="Close" onClick={() => setSelected(null)}>×</button></header>
          <Facts rows={[['Queue / partition', `${selected.queue} / ${selected.partition}`], ['Transaction ID', <span class="mono">{selected.transactionId}</span>], ['Message ID', <span class="mono">{selected.id}</span>], ['Group', selected.consumerGroup], ['Created', fmtTime(selected.createdAt)], ['Failed at', fmtTime(selected.failedAt)], ['Error', selected.errorMessage ?? '–'], ['Retries', String(selected.retryCount)]]} />
          <h3>Payload <button type="button" class="btn plain small" onClick={() => copy(JSON.stringify(selected.data, null, 2), 'Payload copied')}>Copy</button></h3>
          <pre class="json">{JSON.stringify(selected.data, null, 2)}</pre>
          <div class="toolbar">
            <Action needs="READ_WRITE" kind="primary" onClick={() => setAction({ kind: 'retry', row: selected })}>Requeue</Action>
            <Action needs="READ_WRITE" kind="danger" onClick={() => setAction({ kind: 'purge', row: selected })}>Purge</Action>
            <a class="btn plain" href={`/messages?partitionId=${encodeURIComponent(selected.partitionId)}&transactionId=${encodeURIComponent(selected.transactionId)}&range=7d`}>Open message</a>
          </div>
        </aside>
      )}
      {action !== null && 'row' in action && action.kind === 'retry' && (
        <Confirm title="Requeue DLQ entry" confirmLabel="Requeue" call={planned(broker.routes.retryMessage, ids(action.row))} onClose={() => setAction(null)} onDone={after}
          run={async () => { const r = await broker.retryMessage(http('READ_WRITE'), action.row.partitionId, action.row.transactionId); return `Requeued as ${r.success ? r.newTransactionId : ''}`; }}>
          <p>Pushes a copy of message {action.row.transactionId} with a new transactionId to {action.row.queue} / {action.row.partition} and removes its DLQ entries.</p>
        </Confirm>
      )}
      {action !== null && 'row' in action && action.kind === 'purge' && (
        <Confirm danger title="Purge DLQ entry" confirmLabel="Purge" call={planned(broker.routes.deleteMessage, ids(action.row))} onClose={() => setAction(null)} onDone={after}
          run={async () => { await broker.deleteMessage(http('READ_WRITE'), action.row.partitionId, action.row.transactionId); return 'Message purged'; }}>
          <p>Deletes message {action.row.transactionId} with its DLQ entries.</p>
        </Confirm>
      )}
      {action !== null && !('row' in action) && (() => {
        const retry = action.kind === 'bulk-retry';
        const label = queue !== '' ? queue : 'all';
        return (
          <Confirm danger={!retry} title={`${retry ? 'Requeue' : 'Purge'} ${fmtCount(total)} DLQ entries`} confirmLabel={retry ? 'Requeue all' : 'Purge all'} typeToConfirm={retry ? undefined : label}
            call={{ method: retry ? 'POST' : 'DELETE', path: `${(retry ? broker.routes.retryMessage : broker.routes.deleteMessage).path} (per entry)` }} onClose={() => setAction(null)} onDone={after}
            run={async () => {
              const entries = await allEntries(filters);
              const seen = new Set<string>();
              let done = 0;
              for (const r of entries) {
                const key = `${r.partitionId}/${r.transactionId}`;
                if (seen.has(key)) continue; // one message failed by two groups is listed twice
                seen.add(key);
                await (retry ? broker.retryMessage : broker.deleteMessage)(http('READ_WRITE'), r.partitionId, r.transactionId);
                done++;
              }
              return `${retry ? 'Requeued' : 'Purged'} ${fmtCount(done)} message(s)`;
            }}>
            <p>{retry ? 'Every entry matching the filters is requeued (a new message per entry).' : 'Every message matching the filters is deleted.'}</p>
          </Confirm>
        );
      })()}
    </div>
  );
}
