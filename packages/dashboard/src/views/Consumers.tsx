/**
 * Consumers `/consumers` (docs/dashboard.md): consumer groups per queue with lag and state, the lagging
 * partitions panel (skip to end), and per row: drill-down per partition, move to now, seek to a timestamp
 * (queue-wide or one partition), re-time the subscription, delete. Filters live in the URL.
 */
import { useState } from 'preact/hooks';
import { broker, http, planned } from '../api.js';
import { optionsOf, queueList } from '../cache.js';
import { VirtualTable, type Column } from '../components/VirtualTable.js';
import { Action, Card, Confirm, Empty, ErrorNote, Facts, Modal, RowMenu, Select } from '../components/ui.js';
import { fmtCount, fmtDuration, fmtTime, severity } from '../format.js';
import { THRESHOLDS as T } from '../thresholds.js';
import { refreshAll, useLoad } from '../load.js';
import { useQueryState } from '../router.js';
import type { GroupRow, LaggingRow } from '../types.js';

const QM = '__QUEUE_MODE__';
const display = (g: GroupRow): string => (g.name === QM ? g.queueName : g.name);
const tone = (g: GroupRow): string => (g.state === 'Dead' ? 'muted' : severity(g.maxTimeLag, T.lagSeconds.warn, T.lagSeconds.bad));
const RANK: Record<string, number> = { bad: 0, warn: 1, ok: 2, muted: 3 };
const hourAgo = (): string => {
  const d = new Date(Date.now() - 3_600_000);
  d.setMinutes(d.getMinutes() - d.getTimezoneOffset());
  return d.toISOString().slice(0, 16);
};

type Pending =
  | { kind: 'view'; g: GroupRow }
  | { kind: 'now'; g: GroupRow }
  | { kind: 'seek'; g: GroupRow; partition?: string }
  | { kind: 'delete'; g: GroupRow }
  | { kind: 'skip'; row: LaggingRow }
  | { kind: 'subscription'; g: GroupRow };

function SeekModal(props: { g: GroupRow; partition?: string; onClose: () => void }) {
  const [when, setWhen] = useState(hourAgo());
  const iso = new Date(when).toISOString();
  const target = { timestamp: iso };
  const where = { group: props.g.name, queue: props.g.queueName };
  const plan = props.partition === undefined ? planned(broker.routes.seekQueue, where, undefined, target) : planned(broker.routes.seekPartition, { ...where, partition: props.partition }, undefined, target);
  const seek = () => (props.partition === undefined ? broker.seekQueue(http('READ_WRITE'), where.group, where.queue, target) : broker.seekPartition(http('READ_WRITE'), where.group, where.queue, props.partition, target));
  return (
    <Confirm title={`Seek ${display(props.g)} on ${props.g.queueName}${props.partition !== undefined ? ` / ${props.partition}` : ''}`} confirmLabel="Seek" call={plan} onClose={props.onClose} onDone={refreshAll}
      run={async () => { await seek(); return `Seeked to ${fmtTime(iso)}`; }}>
      <label class="field">Replay from<input type="datetime-local" data-testid="seek-time" value={when} onInput={(e) => setWhen((e.target as HTMLInputElement).value)} /></label>
      <p class="muted">Messages newer than this point are delivered again to this group.</p>
    </Confirm>
  );
}

function DetailModal(props: { g: GroupRow; onSeek: (partition: string) => void; onClose: () => void }) {
  const detail = useLoad(() => broker.getConsumerGroup(http(), props.g.name), [props.g.name]);
  const parts = detail.data?.[props.g.queueName]?.partitions ?? [];
  return (
    <Modal wide title={`${display(props.g)} on ${props.g.queueName}`} onClose={props.onClose}>
      <Facts testid="group-facts" rows={[
        ['Partitions contacted', fmtCount(props.g.members)], ['State', props.g.state], ['Lagging partitions', fmtCount(props.g.partitionsWithLag)],
        ['Offset lag', fmtCount(props.g.totalLag)], ['Time lag', fmtDuration(props.g.maxTimeLag)], ['Queues', props.g.topics.join(', ')],
        ['Subscription', `${props.g.subscriptionMode}${props.g.subscriptionTimestamp !== null ? ` from ${fmtTime(props.g.subscriptionTimestamp)}` : ''}`],
      ]} />
      <ErrorNote error={detail.error} />
      <table class="list" data-testid="group-partitions"><thead><tr><th>Partition</th><th class="num">Consumed</th><th class="num">Offset lag</th><th class="num">Time lag</th><th>Lease</th><th>Last consumed</th><th /></tr></thead><tbody>
        {parts.map((p) => (
          <tr key={p.partition} data-testid="group-partition"><td>{p.partition}</td><td class="num">{fmtCount(p.totalConsumed)}</td><td class="num">{fmtCount(p.offsetLag)}</td><td class="num">{fmtDuration(p.timeLagSeconds)}</td>
            <td>{p.leaseActive ? 'active' : '–'}</td><td>{fmtTime(p.lastConsumedAt)}</td><td><Action needs="READ_WRITE" onClick={() => props.onSeek(p.partition)}>Seek</Action></td></tr>
        ))}
      </tbody></table>
    </Modal>
  );
}

/** The consumer groups page. */
export function ConsumersView() {
  const [query, setQuery] = useQueryState();
  const search = query.get('search') ?? '';
  const namespace = query.get('namespace') ?? '';
  const task = query.get('task') ?? '';
  const queueFilter = query.get('queue') ?? '';
  const laggingOnly = query.get('lagging') === '1';
  const sort = query.get('sort') ?? 'worst';
  const threshold = Number(query.get('minLag') ?? '3600');
  const [panelOpen, setPanelOpen] = useState(false);
  const [pending, setPending] = useState<Pending | null>(null);
  const [deleteMetadata, setDeleteMetadata] = useState(true);
  const [subTime, setSubTime] = useState('now');
  const data = useLoad(async () => {
    const [groups, queues] = await Promise.all([broker.listConsumerGroups(http()), queueList()]);
    return { groups, queues };
  }, []);
  const lagging = useLoad(() => broker.listLaggingConsumerGroups(http(), { minLagSeconds: threshold }), [threshold]);
  const d = data.data;
  const scope = new Map((d?.queues ?? []).map((q) => [q.name, q]));
  const needle = search.trim().toLowerCase();
  const rows = (d?.groups ?? []).filter((g) => {
    const q = scope.get(g.queueName);
    return (needle === '' || g.name.toLowerCase().includes(needle) || g.queueName.toLowerCase().includes(needle))
      && (namespace === '' || q?.namespace === namespace) && (task === '' || q?.task === task)
      && (queueFilter === '' || g.queueName === queueFilter) && (!laggingOnly || g.state === 'Lagging' || g.partitionsWithLag > 0);
  });
  const by: Record<string, (a: GroupRow, b: GroupRow) => number> = {
    worst: (a, b) => RANK[tone(a)]! - RANK[tone(b)]! || b.maxTimeLag - a.maxTimeLag,
    lag: (a, b) => b.maxTimeLag - a.maxTimeLag,
    partitions: (a, b) => b.members - a.members,
    name: (a, b) => display(a).localeCompare(display(b)),
  };
  rows.sort(by[sort] ?? by.worst!);
  const queueOptions = [...new Set((d?.groups ?? []).map((g) => g.queueName))].filter((n) => { const q = scope.get(n); return (namespace === '' || q?.namespace === namespace) && (task === '' || q?.task === task); }).sort();
  const columns: Column<GroupRow>[] = [
    { key: 'name', header: 'Group', width: 'minmax(160px, 2fr)', cell: (g) => <>{display(g)}{g.name === QM && <span class="badge">queue mode</span>}</> },
    { key: 'queue', header: 'Queue', width: 'minmax(120px, 2fr)', cell: (g) => <a href={`/queues/${encodeURIComponent(g.queueName)}`} onClick={(e) => e.stopPropagation()}>{g.queueName}</a> },
    // Read = partitions the group has touched; Lagging counts every partition with messages it has not consumed,
    // untouched ones included, so it can be the larger of the two.
    { key: 'partitions', header: 'Partitions read', width: '110px', align: 'right', cell: (g) => fmtCount(g.members) },
    { key: 'lagging', header: 'Lagging', width: '80px', align: 'right', cell: (g) => fmtCount(g.partitionsWithLag) },
    { key: 'offset', header: 'Offset lag', width: '80px', align: 'right', cell: (g) => fmtCount(g.totalLag) },
    { key: 'lag', header: 'Time lag', width: '80px', align: 'right', cell: (g) => fmtDuration(g.maxTimeLag) },
    { key: 'state', header: 'State', width: '76px', cell: (g) => g.state },
    { key: 'actions', header: '', width: '150px', cell: (g) => (
      <span class="row-actions" onClick={(e) => e.stopPropagation()}>
        <button type="button" class="btn plain small" data-testid="view-group" onClick={() => setPending({ kind: 'view', g })}>View</button>
        <RowMenu testid="group-actions">
          <Action needs="READ_WRITE" testid="move-to-now" onClick={() => setPending({ kind: 'now', g })}>Move to now</Action>
          <Action needs="READ_WRITE" testid="seek-group" onClick={() => setPending({ kind: 'seek', g })}>Seek to a time</Action>
          {g.name !== QM && <Action needs="READ_WRITE" testid="subscription" onClick={() => setPending({ kind: 'subscription', g })}>Subscription</Action>}
          <Action needs="ADMIN" kind="danger" testid="delete-group" onClick={() => setPending({ kind: 'delete', g })}>Delete</Action>
        </RowMenu>
      </span>
    ) },
  ];
  const lagRows = lagging.data ?? [];
  const p = pending;
  return (
    <div class="stack">
      <div class="toolbar">
        <input class="search" data-testid="group-search" placeholder="Search group or queue" value={search} onInput={(e) => setQuery({ search: (e.target as HTMLInputElement).value })} />
        <Select label="Namespace" value={namespace} options={[{ value: '', label: 'All' }, ...optionsOf(d?.queues ?? [], 'namespace').map((v) => ({ value: v, label: v }))]} onChange={(v) => setQuery({ namespace: v })} />
        <Select label="Task" value={task} options={[{ value: '', label: 'All' }, ...optionsOf(d?.queues ?? [], 'task').map((v) => ({ value: v, label: v }))]} onChange={(v) => setQuery({ task: v })} />
        <Select label="Queue" value={queueFilter} options={[{ value: '', label: 'All' }, ...queueOptions.map((v) => ({ value: v, label: v }))]} onChange={(v) => setQuery({ queue: v })} testid="filter-queue" />
        <label class="field inline check"><input type="checkbox" checked={laggingOnly} onChange={(e) => setQuery({ lagging: (e.target as HTMLInputElement).checked ? '1' : null })} />Lagging only</label>
        <Select label="Sort" value={sort} options={[{ value: 'worst', label: 'Worst first' }, { value: 'lag', label: 'Lag' }, { value: 'partitions', label: 'Partitions' }, { value: 'name', label: 'Name' }]} onChange={(v) => setQuery({ sort: v === 'worst' ? null : v })} />
      </div>
      <ErrorNote error={data.error} stale={d !== undefined} />
      <Card title="Lagging partitions" testid="lagging-panel" actions={
        <>
          <span class="badge" data-testid="lagging-count">{fmtCount(lagRows.length)}</span>
          <Select label="Lag ≥" value={String(threshold)} options={[['60', '1m'], ['300', '5m'], ['1800', '30m'], ['3600', '1h'], ['21600', '6h'], ['86400', '24h'], ['0', 'any']].map(([v, l]) => ({ value: v!, label: l! }))} onChange={(v) => setQuery({ minLag: v === '3600' ? null : v })} testid="lag-threshold" />
          <button type="button" class="btn plain" onClick={lagging.reload}>Refresh</button>
          <button type="button" class="btn plain" data-testid="toggle-lagging" onClick={() => setPanelOpen(!panelOpen)}>{panelOpen ? 'Hide' : 'Show'}</button>
        </>
      }>
        {panelOpen && (lagRows.length === 0 ? <Empty>No partition lags that much.</Empty> : (
          <table class="list"><thead><tr><th>Group</th><th>Queue</th><th>Partition</th><th>Worker</th><th class="num">Offset lag</th><th class="num">Time lag</th><th>Oldest unconsumed</th><th /></tr></thead><tbody>
            {lagRows.map((r) => (
              <tr key={`${r.consumer_group}/${r.partition_id}`} data-testid="lagging-row"><td>{r.consumer_group === QM ? 'queue mode' : r.consumer_group}</td><td>{r.queue_name}</td><td>{r.partition_name}</td><td class="mono">{r.worker_id?.slice(0, 8) ?? '–'}</td>
                <td class="num">{fmtCount(r.offset_lag)}</td><td class={`num ${severity(r.time_lag_seconds, T.lagSeconds.warn, T.lagSeconds.bad).replace('ok', '')}`}>{fmtDuration(r.time_lag_seconds)}</td><td>{fmtTime(r.oldest_unconsumed_at)}</td>
                <td><Action needs="READ_WRITE" testid="skip-to-end" onClick={() => setPending({ kind: 'skip', row: r })}>Skip to end</Action></td></tr>
            ))}
          </tbody></table>
        ))}
      </Card>
      <Card title={d === undefined ? 'Consumer groups' : `Consumer groups (${fmtCount(rows.length)})`}>
        {d === undefined ? <div class="skeleton" /> : rows.length === 0 ? <Empty>{(d.groups.length === 0) ? 'No consumer groups found' : 'No groups match your filters'}</Empty> : (
          <VirtualTable testid="group-table" rows={rows} columns={columns} rowKey={(g) => `${g.name}/${g.queueName}`} rowClass={(g) => `sev-${tone(g)}`} onRow={(g) => setPending({ kind: 'view', g })} />
        )}
      </Card>
      {p?.kind === 'view' && <DetailModal g={p.g} onClose={() => setPending(null)} onSeek={(partition) => setPending({ kind: 'seek', g: p.g, partition })} />}
      {p?.kind === 'seek' && <SeekModal g={p.g} {...(p.partition !== undefined ? { partition: p.partition } : {})} onClose={() => setPending(null)} />}
      {p?.kind === 'now' && (() => {
        const toEnd = { toEnd: true } as const;
        return (
          <Confirm title={`Move ${display(p.g)} to now`} confirmLabel="Move to now" call={planned(broker.routes.seekQueue, { group: p.g.name, queue: p.g.queueName }, undefined, toEnd)} onClose={() => setPending(null)} onDone={refreshAll}
            run={async () => { const r = await broker.seekQueue(http('READ_WRITE'), p.g.name, p.g.queueName, toEnd); return `Moved ${fmtCount(r.success ? r.partitionsUpdated : 0)} partition(s) to the end`; }}>
            <p>Skips every message not yet consumed by this group on {p.g.queueName}.</p>
          </Confirm>
        );
      })()}
      {p?.kind === 'skip' && (() => {
        const at = { group: p.row.consumer_group, queue: p.row.queue_name, partition: p.row.partition_name };
        return (
          <Confirm title={`Skip ${p.row.partition_name} to end`} confirmLabel="Skip to end" call={planned(broker.routes.seekPartition, at)} onClose={() => setPending(null)} onDone={refreshAll}
            run={async () => { await broker.seekPartition(http('READ_WRITE'), at.group, at.queue, at.partition); return `Skipped ${p.row.partition_name} to the end`; }}>
            <p>{fmtCount(p.row.offset_lag)} message(s) of this partition will not be delivered to {p.row.consumer_group === QM ? 'queue mode' : p.row.consumer_group}.</p>
          </Confirm>
        );
      })()}
      {p?.kind === 'subscription' && (() => {
        const value = subTime.trim() === '' ? 'now' : subTime.trim();
        return (
          <Confirm title={`Subscription of ${p.g.name}`} confirmLabel="Re-time" call={planned(broker.routes.updateSubscription, { group: p.g.name }, undefined, { subscriptionTimestamp: value })} onClose={() => setPending(null)} onDone={refreshAll}
            run={async () => { const r = await broker.updateSubscription(http('READ_WRITE'), p.g.name, value); return `Subscription re-timed (${fmtCount(r.success ? r.rowsUpdated : 0)} record(s))`; }}>
            <label class="field">Subscription timestamp (ISO-8601 or now)<input value={subTime} onInput={(e) => setSubTime((e.target as HTMLInputElement).value)} /></label>
          </Confirm>
        );
      })()}
      {p?.kind === 'delete' && (() => {
        return (
          <Confirm danger title={`Delete ${display(p.g)} on ${p.g.queueName}`} confirmLabel="Delete group" call={planned(broker.routes.deleteConsumerGroupForQueue, { group: p.g.name, queue: p.g.queueName }, { deleteMetadata })} onClose={() => setPending(null)} onDone={refreshAll}
            run={async () => { const r = await broker.deleteConsumerGroupForQueue(http('ADMIN'), p.g.name, p.g.queueName, { deleteMetadata }); return `Deleted the group's cursors on ${fmtCount(r.deletedPartitions)} partition(s)`; }}>
            <label class="field check"><input type="checkbox" data-testid="delete-metadata" checked={deleteMetadata} onChange={(e) => setDeleteMetadata((e.target as HTMLInputElement).checked)} />Also delete subscription metadata</label>
          </Confirm>
        );
      })()}
    </div>
  );
}
