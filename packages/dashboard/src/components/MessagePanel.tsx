/**
 * The message side panel: status, ids, payload, per-group state, the trace timeline, and the actions that fit
 * the status (requeue from the DLQ, move the head to the DLQ, delete). Peeking never leases the message.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { broker, http, planned } from '../api.js';
import { fmtTime } from '../format.js';
import { useLoad } from '../load.js';
import type { MessageDetail } from '../types.js';
import { Action, Confirm, ErrorNote, Facts, copy } from './ui.js';

const statusClass = (s: string): string => (s === 'dead_letter' ? 'bad' : s === 'processing' ? 'warn' : s === 'completed' ? 'ok' : '');

/** The panel for one message; `onChanged` runs after an action changed it. */
export function MessagePanel(props: { partitionId: string; transactionId: string; onClose: () => void; onChanged: () => void }) {
  const ids = { partitionId: props.partitionId, transactionId: props.transactionId };
  const base = `${ids.partitionId}/${ids.transactionId}`;
  // The requester has already turned a miss (X-Queen-Status 404) into an error: what arrives is the detail.
  const msg = useLoad(async () => (await broker.getMessage(http(), ids.partitionId, ids.transactionId)) as MessageDetail, [base]);
  const traces = useLoad(() => broker.getTraces(http(), ids.partitionId, ids.transactionId), [base]);
  const [action, setAction] = useState<null | 'retry' | 'dlq' | 'delete'>(null);
  const [group, setGroup] = useState('__QUEUE_MODE__');
  const [reason, setReason] = useState('Moved to DLQ by operator');
  const m = msg.data;
  const dlqBody = { consumerGroup: group, error: reason };
  return (
    <aside class="panel" data-testid="message-panel" aria-label="Message">
      <header class="modal-head"><h2>Message</h2><button type="button" class="btn plain" aria-label="Close" onClick={props.onClose}>×</button></header>
      <ErrorNote error={msg.error} />
      {m !== undefined && (
        <>
          <div class="toolbar">
            <span class={`chip ${statusClass(m.status)}`} data-testid="panel-status">{m.status}</span>
            <span class="grow" />
            {m.status === 'dead_letter' && <Action needs="READ_WRITE" kind="primary" testid="panel-retry" onClick={() => setAction('retry')}>Requeue</Action>}
            {m.status === 'pending' && <Action needs="READ_WRITE" testid="panel-dlq" title="Only the head message of a partition (the next one to deliver) can be moved" onClick={() => setAction('dlq')}>Move to DLQ</Action>}
            <Action needs="READ_WRITE" kind="danger" testid="panel-delete" onClick={() => setAction('delete')}>Delete</Action>
          </div>
          <Facts testid="panel-facts" rows={[
            ['Queue / partition', `${m.queue} / ${m.partition}`], ['Transaction ID', <span class="mono" data-testid="panel-tx">{m.transactionId}</span>],
            ['Message ID', <span class="mono">{m.id}</span>], ['Partition ID', <span class="mono">{m.partitionId}</span>], ['Created', fmtTime(m.createdAt)],
            ['Trace ID', m.traceId ?? '–'],
            ['W3C traceparent', m.traceparent === null ? '–' : <span class="mono" data-testid="panel-traceparent">{m.traceparent}</span>],
            ...(m.tracestate === null ? [] : [['W3C tracestate', <span class="mono" data-testid="panel-tracestate">{m.tracestate}</span>] as [string, ComponentChildren]]),
            ['Error', m.errorMessage ?? '–'], ['Retry count', String(m.retryCount)], ['Lease expires', fmtTime(m.leaseExpiresAt)],
            ['Queue config', Object.entries(m.queueConfig).map(([k, v]) => `${k} ${v}`).join(' · ')],
          ]} />
          <h3>Payload <button type="button" class="btn plain small" onClick={() => copy(JSON.stringify(m.payload, null, 2), 'Payload copied')}>Copy</button></h3>
          <pre class="json" data-testid="panel-payload">{JSON.stringify(m.payload, null, 2)}</pre>
          <h3>Consumer groups</h3>
          <table class="list" data-testid="panel-groups"><thead><tr><th>Group</th><th>State</th><th class="num">Retries</th><th class="num">Deliveries</th><th>Lease expires</th></tr></thead><tbody>
            {m.consumerGroups.map((g) => <tr key={g.name}><td>{g.name === '__QUEUE_MODE__' ? 'queue mode' : g.name}</td><td>{g.consumed ? 'Consumed' : 'Pending'}</td><td class="num">{g.retryCount}</td><td class="num">{g.deliveryAttempts ?? '–'}</td><td>{fmtTime(g.leaseExpiresAt)}</td></tr>)}
          </tbody></table>
          <h3>Trace timeline</h3>
          {(traces.data?.traces ?? []).length === 0 ? <p class="muted">No traces recorded.</p> : (
            <ol class="timeline" data-testid="panel-traces">
              {traces.data!.traces.map((t) => <li key={t.id} class={`ev ${t.event_type}`}><b>{t.event_type}</b> <span class="muted">{fmtTime(t.created_at)} · {t.consumer_group ?? '–'} · {t.trace_names.join(', ')}</span><pre class="json">{JSON.stringify(t.data)}</pre></li>)}
            </ol>
          )}
        </>
      )}
      {action === 'retry' && (
        <Confirm title="Requeue from the DLQ" confirmLabel="Requeue" call={planned(broker.routes.retryMessage, ids)} onClose={() => setAction(null)} onDone={props.onChanged}
          run={async () => { const r = await broker.retryMessage(http('READ_WRITE'), ids.partitionId, ids.transactionId); return `Requeued as ${r.success ? r.newTransactionId : ''}`; }}>
          <p>Pushes a copy with a new transactionId to the same partition and removes the DLQ entries; every group sees the new message.</p>
        </Confirm>
      )}
      {action === 'dlq' && (
        <Confirm title="Move to the DLQ" confirmLabel="Move to DLQ" call={planned(broker.routes.moveMessageToDlq, ids, undefined, dlqBody)} onClose={() => setAction(null)} onDone={props.onChanged}
          run={async () => { await broker.moveMessageToDlq(http('READ_WRITE'), ids.partitionId, ids.transactionId, dlqBody); return 'Moved to the DLQ'; }}>
          <p>Only the group's head message (the next one it would receive) can be moved; its cursor then steps past it.</p>
          <label class="field">Consumer group
            <select data-testid="dlq-group" value={group} onChange={(e) => setGroup((e.target as HTMLSelectElement).value)}>
              {[...new Set(['__QUEUE_MODE__', ...(m?.consumerGroups ?? []).filter((g) => !g.consumed).map((g) => g.name)])].map((g) => <option key={g} value={g}>{g === '__QUEUE_MODE__' ? 'queue mode' : g}</option>)}
            </select>
          </label>
          <label class="field">Error text<input value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} /></label>
        </Confirm>
      )}
      {action === 'delete' && (
        <Confirm danger title="Delete message" confirmLabel="Delete" call={planned(broker.routes.deleteMessage, ids)} onClose={() => setAction(null)} onDone={() => { props.onChanged(); props.onClose(); }}
          run={async () => { await broker.deleteMessage(http('READ_WRITE'), ids.partitionId, ids.transactionId); return 'Message deleted'; }}>
          <p>Deletes the message with its DLQ entries and traces.</p>
        </Confirm>
      )}
    </aside>
  );
}
