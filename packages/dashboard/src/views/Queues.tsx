/**
 * Queues `/queues` (docs/dashboard.md): search, namespace/task filters and sort held in the URL; a virtualised
 * grid of every queue with density, 15-minute pop rate and trend, lag p99 and severity; create and delete.
 */
import { useState } from 'preact/hooks';
import { broker, http, planned } from '../api.js';
import { invalidateQueues, optionsOf, queueList } from '../cache.js';
import { QueueForm } from '../components/QueueForm.js';
import { VirtualTable, type Column } from '../components/VirtualTable.js';
import { Action, Card, Confirm, Empty, ErrorNote, Select } from '../components/ui.js';
import { fmtCount, fmtMs, fmtRate, severity } from '../format.js';
import { refreshAll, useLoad } from '../load.js';
import { navigate, useQueryState } from '../router.js';
import { rangeParams } from '../series.js';
import type { GroupRow, QueueLagRow, QueueOpsRow, QueueRow } from '../types.js';
import { FALLING_MIN_PENDING, FALLING_MIN_PUSHED, FALLING_RATIO, LAG_MIN_POPPED, THRESHOLDS as T } from '../thresholds.js';

type Severity = 'bad' | 'warn' | 'idle' | 'ok';
interface Line { q: QueueRow; density: number; push: number; pop: number; ratio: number; lagMs: number; sev: Severity; why: string }

const WINDOW_S = 15 * 60;

/**
 * Severity of a queue row (docs/dashboard.md "Colour") with the reasons behind it: pending depth, and, only with
 * real traffic, the delivery lag p99 (at least LAG_MIN_POPPED deliveries: the p99 of a handful of messages is
 * just the slowest one) and pops per group falling behind pushes (FALLING_MIN_PUSHED in the window and
 * FALLING_MIN_PENDING waiting). Pops count once per consumer group, so they are divided by the queue's groups.
 */
export function rowSeverity(pushed: number, popped: number, pending: number, lagMs: number, groups = 1): { sev: Severity; why: string } {
  const reasons: Array<[Severity, string]> = [];
  const ratio = popped / Math.max(1, groups) / Math.max(1, pushed);
  if (pushed >= FALLING_MIN_PUSHED && pending >= FALLING_MIN_PENDING) {
    const tone = ratio < FALLING_RATIO.bad ? 'bad' : ratio < FALLING_RATIO.warn ? 'warn' : null;
    if (tone !== null) reasons.push([tone, `falling behind: pops per group ${Math.round(ratio * 100)} % of pushes`]);
  }
  if (popped >= LAG_MIN_POPPED) {
    const tone = severity(lagMs, T.deliveryLagMs.warn, T.deliveryLagMs.bad);
    if (tone !== 'ok') reasons.push([tone, `slow delivery: lag p99 ${fmtMs(lagMs)}`]);
  }
  const depth = severity(pending, T.pending.warn, T.pending.bad);
  if (depth !== 'ok') reasons.push([depth, `deep: ${fmtCount(pending)} pending`]);
  const sev: Severity = reasons.some(([t]) => t === 'bad') ? 'bad' : reasons.length > 0 ? 'warn'
    : pushed === 0 && popped === 0 && pending === 0 ? 'idle' : 'ok';
  return { sev, why: reasons.map(([, text]) => text).join('; ') };
}

const RANK = { bad: 0, warn: 1, ok: 2, idle: 3 };

/** The queue list. */
export function QueuesView() {
  const [query, setQuery] = useQueryState();
  const search = query.get('search') ?? '';
  const namespace = query.get('namespace') ?? '';
  const task = query.get('task') ?? '';
  const sort = query.get('sort') ?? 'worst';
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<QueueRow | null>(null);
  const data = useLoad(async () => {
    const { from, to } = rangeParams('15m');
    const [queues, ops, lag, groups] = await Promise.all([
      queueList(true),
      broker.getQueueOps(http(), { from, to }).catch((): QueueOpsRow[] => []),
      broker.getQueueLag(http(), { from, to }).catch((): QueueLagRow[] => []),
      broker.listConsumerGroups(http()).catch((): GroupRow[] => []),
    ]);
    return { queues, ops, lag, groups };
  }, []);
  const d = data.data;
  let lines: Line[] = [];
  if (d !== undefined) {
    const push = new Map<string, number>();
    const pop = new Map<string, number>();
    const lag = new Map<string, number>();
    for (const r of d.ops) {
      push.set(r.queue, (push.get(r.queue) ?? 0) + r.pushMessages);
      pop.set(r.queue, (pop.get(r.queue) ?? 0) + r.popMessages);
    }
    for (const r of d.lag) lag.set(r.queue, Math.max(lag.get(r.queue) ?? 0, r.maxLagMs));
    const groups = new Map<string, number>();
    for (const g of d.groups) groups.set(g.queueName, (groups.get(g.queueName) ?? 0) + 1);
    const needle = search.trim().toLowerCase();
    lines = d.queues
      .filter((q) => (needle === '' || q.name.toLowerCase().includes(needle)) && (namespace === '' || (q.namespace ?? '') === (namespace === '(empty)' ? '' : namespace)) && (task === '' || (q.task ?? '') === (task === '(empty)' ? '' : task)))
      .map((q) => {
        const pushed = push.get(q.name) ?? 0;
        const popped = pop.get(q.name) ?? 0;
        const l = lag.get(q.name) ?? 0;
        const groupCount = Math.max(1, groups.get(q.name) ?? 0);
        const { sev, why } = rowSeverity(pushed, popped, q.messages.pending, l, groupCount);
        return { q, density: q.partitions > 0 ? q.messages.total / q.partitions : 0, push: pushed / WINDOW_S, pop: popped / WINDOW_S, ratio: pushed > 0 ? popped / groupCount / pushed : 1, lagMs: l, sev, why };
      });
    const by: Record<string, (a: Line, b: Line) => number> = {
      worst: (a, b) => RANK[a.sev] - RANK[b.sev] || b.lagMs - a.lagMs || b.q.messages.pending - a.q.messages.pending || a.q.name.localeCompare(b.q.name),
      lag: (a, b) => b.lagMs - a.lagMs,
      density: (a, b) => b.density - a.density,
      partitions: (a, b) => b.q.partitions - a.q.partitions,
      name: (a, b) => a.q.name.localeCompare(b.q.name),
    };
    lines.sort(by[sort] ?? by.worst!);
  }
  const columns: Column<Line>[] = [
    { key: 'name', header: 'Queue', width: 'minmax(200px, 3fr)', cell: (l) => {
      const dot = l.q.name.indexOf('.');
      return <a href={`/queues/${encodeURIComponent(l.q.name)}`} onClick={(e) => e.stopPropagation()}>{dot > 0 ? <><span class="muted">{l.q.name.slice(0, dot + 1)}</span>{l.q.name.slice(dot + 1)}</> : l.q.name}</a>;
    } },
    { key: 'pending', header: 'Pending', width: '1fr', align: 'right', cell: (l) => fmtCount(l.q.messages.pending) },
    { key: 'total', header: 'Total', width: '1fr', align: 'right', cell: (l) => fmtCount(l.q.messages.total) },
    { key: 'density', header: 'Density', width: '1fr', align: 'right', cell: (l) => `${fmtRate(l.density)} msg/p` },
    { key: 'throughput', header: 'Pop/s', width: '1fr', align: 'right', cell: (l) => <>{fmtRate(l.pop)} <span class="muted" title="pops against pushes in the last 15 minutes">{l.ratio >= 1 ? '↑' : l.ratio >= FALLING_RATIO.warn ? '→' : '↓'}</span></> },
    { key: 'lag', header: 'Lag p99', width: '1fr', align: 'right', cell: (l) => fmtMs(l.lagMs) },
    { key: 'partitions', header: 'Partitions', width: '1fr', align: 'right', cell: (l) => fmtCount(l.q.partitions) },
    { key: 'actions', header: '', width: '96px', cell: (l) => <span onClick={(e) => e.stopPropagation()}><Action needs="ADMIN" kind="danger" testid="delete-queue" onClick={() => setDeleting(l.q)}>Delete</Action></span> },
  ];
  const all = d?.queues ?? [];
  const nsOptions = [{ value: '', label: 'All namespaces' }, ...optionsOf(all, 'namespace').map((v) => ({ value: v, label: v })), { value: '(empty)', label: '(empty)' }];
  const taskOptions = [{ value: '', label: 'All tasks' }, ...optionsOf(all, 'task').map((v) => ({ value: v, label: v })), { value: '(empty)', label: '(empty)' }];
  return (
    <div class="stack">
      <div class="toolbar">
        <input class="search" data-testid="queue-search" placeholder="Search queues" value={search} onInput={(e) => setQuery({ search: (e.target as HTMLInputElement).value })} />
        <Select label="Namespace" value={namespace} options={nsOptions} onChange={(v) => setQuery({ namespace: v })} testid="filter-namespace" />
        <Select label="Task" value={task} options={taskOptions} onChange={(v) => setQuery({ task: v })} testid="filter-task" />
        <Select label="Sort" value={sort} options={[{ value: 'worst', label: 'Worst first' }, { value: 'lag', label: 'Lag' }, { value: 'density', label: 'Density' }, { value: 'partitions', label: 'Partitions' }, { value: 'name', label: 'Name' }]} onChange={(v) => setQuery({ sort: v === 'worst' ? null : v })} testid="sort" />
        <span class="legend" title="Hover a row for its reasons: falling behind (pops per group under pushes, with real traffic), slow delivery (lag p99, with real traffic), deep (pending)"><span class="sev ok" />healthy <span class="sev idle" />idle <span class="sev warn" />needs a look <span class="sev bad" />act now</span>
        <span class="grow" />
        <Action needs="READ_WRITE" kind="primary" testid="create-queue" onClick={() => setCreating(true)}>Create queue</Action>
      </div>
      <ErrorNote error={data.error} stale={d !== undefined} />
      <Card title={d === undefined ? 'Queues' : `Queues (${fmtCount(lines.length)} of ${fmtCount(all.length)})`}>
        {d === undefined ? <div class="skeleton" /> : lines.length === 0 ? (
          <Empty>No queues found. {all.length > 0 ? 'Try adjusting your filters.' : 'Create a queue to get started.'}</Empty>
        ) : (
          <VirtualTable testid="queue-table" rows={lines} columns={columns} rowKey={(l) => l.q.name} rowClass={(l) => `sev-${l.sev}`} rowTitle={(l) => l.why} onRow={(l) => navigate(`/queues/${encodeURIComponent(l.q.name)}`)} />
        )}
      </Card>
      {creating && <QueueForm onClose={() => setCreating(false)} onDone={(name) => { setCreating(false); invalidateQueues(); navigate(`/queues/${encodeURIComponent(name)}`); }} />}
      {deleting !== null && (
        <Confirm danger title={`Delete queue ${deleting.name}`} confirmLabel="Delete queue" typeToConfirm={deleting.name}
          call={planned(broker.routes.deleteQueue, { queue: deleting.name })} onClose={() => setDeleting(null)}
          onDone={() => { invalidateQueues(); refreshAll(); }}
          run={async () => { await broker.deleteQueue(http('ADMIN'), deleting.name); return `Queue ${deleting.name} deleted`; }}>
          <p>Deletes the queue with its {fmtCount(deleting.partitions)} partition(s) and {fmtCount(deleting.messages.total)} message(s), cursors and DLQ entries.</p>
        </Confirm>
      )}
    </div>
  );
}
