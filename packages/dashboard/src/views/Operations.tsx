/**
 * Queue Operations `/operations` (docs/dashboard.md): throughput, latency, event loop, pool, in-flight requests,
 * errors, DLQ moves, retention jobs, top queues, per-queue series and the workers table, for a range or a
 * custom window (in the URL).
 */
import { useState } from 'preact/hooks';
import { broker, http } from '../api.js';
import { queueList } from '../cache.js';
import { Chart } from '../components/Chart.js';
import { Card, Empty, ErrorNote, RangePicker } from '../components/ui.js';
import { fmtAgo, fmtCount, fmtMs, fmtRate, severity } from '../format.js';
import { THRESHOLDS as T } from '../thresholds.js';
import { useLoad } from '../load.js';
import { useQueryState } from '../router.js';
import { allows, session } from '../session.js';
import { frameFrom, latest, max, rangeParams, sum, type Frame } from '../series.js';
import type { ParkedRow, QueueLagRow, QueueOpsRow, Retention, SharedState } from '../types.js';
import { brokerCountText, bucketSeconds, lagFrame, queueOpsFrame, retentionAll, retentionFrame, systemFrame, throughputFrame } from './common.js';

/** Event-loop colour class ('' when fine). */
const elClass = (ms: number | null): string => severity(ms, T.eventLoopMs.warn, T.eventLoopMs.bad).replace('ok', '');

const OPS: { key: string; label: string; field: keyof QueueOpsRow }[] = [
  { key: 'pop', label: 'Pop/s', field: 'popMessages' }, { key: 'push', label: 'Push/s', field: 'pushMessages' },
  { key: 'ack', label: 'Ack/s', field: 'ackMessages' }, { key: 'trx', label: 'Trx/s', field: 'transactions' },
];

function TopTable(props: { title: string; rows: [string, string][]; testid: string; existing: ReadonlySet<string> }) {
  return (
    <Card title={props.title} testid={props.testid}>
      {props.rows.length === 0 ? <Empty>None</Empty> : <table class="list"><tbody>{props.rows.map(([q, v]) => (
        <tr key={q}><td>{props.existing.has(q) ? <a href={`/queues/${encodeURIComponent(q)}`}>{q}</a> : <span class="muted" title="deleted since">{q} (deleted)</span>}</td><td class="num">{v}</td></tr>
      ))}</tbody></table>}
    </Card>
  );
}

/** The operations page. */
export function OperationsView() {
  const [query, setQuery] = useQueryState();
  const range = query.get('range') ?? '1h';
  const customFrom = query.get('from') ?? '';
  const customTo = query.get('to') ?? '';
  const [op, setOp] = useState('pop');
  const [draft, setDraft] = useState({ from: customFrom, to: customTo });
  const window = range === 'custom' && customFrom !== '' && customTo !== '' && new Date(customFrom) < new Date(customTo)
    ? { from: new Date(customFrom).toISOString(), to: new Date(customTo).toISOString() } : rangeParams(range === 'custom' ? '1h' : range);
  const data = useLoad(async () => {
    const w = window;
    const [worker, status, system, ops, lag, parked, retention, shared, existing] = await Promise.all([
      broker.getWorkerMetrics(http(), w),
      broker.getStatus(http(), w),
      broker.getSystemMetrics(http(), w),
      broker.getQueueOps(http(), w).catch((): QueueOpsRow[] => []),
      broker.getQueueLag(http(), w).catch((): QueueLagRow[] => []),
      broker.getParkedReplicas(http()).catch((): ParkedRow[] => []),
      retentionAll(w.from, w.to).catch((): Retention => ({ history: [], total: 0, pagination: { limit: 1000, offset: 0 } })),
      allows(session.get(), 'ADMIN') ? broker.getSharedState(http('ADMIN')).catch((): SharedState | null => null) : Promise.resolve(null),
      queueList(),
    ]);
    return { worker, status, system, ops, lag, parked, retention, shared, existing };
  }, [window.from.slice(0, 16), window.to.slice(0, 16)]);
  const d = data.data;
  const empty: Frame = { x: [], series: [] };
  const bucketMs = bucketSeconds(d?.worker.bucketMinutes) * 1000;
  const tp = d === undefined ? empty : throughputFrame(d.worker);
  const lat = d === undefined ? empty : lagFrame(d.status);
  const el = d === undefined ? empty : systemFrame(d.system, ['avg ms'], (p) => [p.metrics.eventLoop.lagMs], 'avg');
  if (d !== undefined) el.series.push(systemFrame(d.system, ['max ms'], (p) => [p.metrics.eventLoop.lagMs], 'max').series[0]!);
  const pool = d === undefined ? empty : systemFrame(d.system, ['free slots', 'DB connections', 'waiting'], (p) => [p.metrics.database.idle, p.metrics.database.poolSize, p.metrics.database.waiting]);
  const inflight = d === undefined ? empty : systemFrame(d.system, ['in-flight requests', 'parked pops'], (p) => [p.metrics.registries.inflightRequests, p.metrics.registries.parkedPops]);
  const errors = d === undefined ? empty : frameFrom(d.worker.timeSeries, bucketMs, ['errors'], (p) => [p.errors]);
  const opsErr = d === undefined ? empty : queueOpsFrame(d.ops, bucketMs, ['ackFailed', 'dlqMoved'], ['ack failed', 'DLQ']);
  const errorTotal = sum(errors.series[0]?.values ?? []) + sum(opsErr.series[0]?.values ?? []);
  const dlqTotal = sum(opsErr.series[1]?.values ?? []);
  const ret = d === undefined ? empty : retentionFrame(d.retention, bucketMs);
  const windowS = (new Date(window.to).getTime() - new Date(window.from).getTime()) / 1000;
  const perQueue = new Map<string, { push: number; pop: number }>();
  for (const r of d?.ops ?? []) {
    const e = perQueue.get(r.queue) ?? { push: 0, pop: 0 };
    e.push += r.pushMessages;
    e.pop += r.popMessages;
    perQueue.set(r.queue, e);
  }
  const lagW = new Map<string, { n: number; w: number }>();
  for (const r of d?.lag ?? []) {
    if (r.popMessages <= 0) continue;
    const e = lagW.get(r.queue) ?? { n: 0, w: 0 };
    e.n += r.popMessages;
    e.w += r.avgLagMs * r.popMessages;
    lagW.set(r.queue, e);
  }
  const top = (f: (v: { push: number; pop: number }) => number): [string, string][] => [...perQueue.entries()].sort((a, b) => f(b[1]) - f(a[1])).slice(0, 5).filter(([, v]) => f(v) > 0).map(([q, v]) => [q, `${fmtRate(f(v) / windowS)} /s`]);
  const parkedByQueue = new Map<string, number>();
  for (const p of d?.parked ?? []) parkedByQueue.set(p.queue, (parkedByQueue.get(p.queue) ?? 0) + p.parked);
  // The picker offers the queues that exist now; a deleted queue's history stays in the top tables, unlinked.
  const existing = new Set((d?.existing ?? []).map((q) => q.name));
  const queues = [...perQueue.keys()].filter((q) => existing.has(q)).sort();
  const [picked, setPicked] = useState<string[] | null>(null);
  const shown = (picked ?? queues.slice(0, 8)).filter((q) => queues.includes(q));
  const opField = OPS.find((o) => o.key === op)!.field;
  const perQueueFrame: Frame = d === undefined ? empty : frameFrom(d.ops.filter((r) => shown.includes(r.queue)), bucketMs, shown, (r) => shown.map((q) => (q === r.queue ? Number(r[opField]) / (bucketMs / 1000) : null)));
  return (
    <div class="stack">
      <div class="toolbar">
        <RangePicker value={range} options={['15m', '1h', '6h', '24h', 'custom']} onChange={(v) => setQuery({ range: v === '1h' ? null : v })} />
        {range === 'custom' && (
          <form class="toolbar" onSubmit={(e) => { e.preventDefault(); if (draft.from !== '' && draft.to !== '' && new Date(draft.from) < new Date(draft.to)) setQuery({ from: draft.from, to: draft.to }); }}>
            <input type="datetime-local" value={draft.from} onInput={(e) => setDraft({ ...draft, from: (e.target as HTMLInputElement).value })} />
            <input type="datetime-local" value={draft.to} onInput={(e) => setDraft({ ...draft, to: (e.target as HTMLInputElement).value })} />
            <button type="submit" class="btn primary">Apply</button>
          </form>
        )}
      </div>
      <ErrorNote error={data.error} stale={d !== undefined} />
      <div class="grid2">
        <Card title="Message throughput"><Chart span={window} frame={tp} unit=" /s" testid="ops-throughput" title="push / pop / ack per second" /></Card>
        <Card title="Message latency"><Chart span={window} frame={lat} unit=" ms" testid="ops-latency" /></Card>
        <Card title="Event loop latency"><Chart span={window} frame={el} unit=" ms" /></Card>
        <Card title="Connection pool"><Chart span={window} frame={pool} /></Card>
        <Card title="In-flight requests and parked pops"><Chart span={window} frame={inflight} /></Card>
        <Card title="Errors" actions={<span class="chip" data-testid="ops-errors-total">{fmtCount(errorTotal)} in period</span>}><Chart span={window} frame={{ x: errors.x.length >= opsErr.x.length ? errors.x : opsErr.x, series: errors.x.length >= opsErr.x.length ? [...errors.series] : [opsErr.series[0]!] }} bars /></Card>
        <Card title="Dead letter queue" actions={<span class="chip" data-testid="ops-dlq-total">{fmtCount(dlqTotal)} in period</span>}>
          {dlqTotal === 0 ? <div class="note ok">No DLQ events in this period</div> : <Chart span={window} frame={{ x: opsErr.x, series: [opsErr.series[1]!] }} bars />}
        </Card>
        <Card title="Retention & eviction jobs" actions={<span class="chip" data-testid="ops-retention-total">{fmtCount(d?.retention.history.reduce((a, h) => a + h.deleted, 0) ?? 0)} deleted</span>}><Chart span={window} frame={ret} bars /></Card>
      </div>
      <div class="grid4">
        <TopTable existing={existing} title="Top by push/s" testid="top-push" rows={top((v) => v.push)} />
        <TopTable existing={existing} title="Top by pop/s" testid="top-pop" rows={top((v) => v.pop)} />
        <TopTable existing={existing} title="Top by parked" testid="top-parked" rows={[...parkedByQueue.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([q, n]) => [q, fmtCount(n)])} />
        <TopTable existing={existing} title="Top by avg lag" testid="top-lag" rows={[...lagW.entries()].map(([q, e]) => [q, e.w / e.n] as [string, number]).sort((a, b) => b[1] - a[1]).slice(0, 5).map(([q, v]) => [q, fmtMs(v)])} />
      </div>
      <Card title="Per-queue metrics" actions={<span class="muted">{shown.length} of {queues.length}</span>}>
        <div class="toolbar">
          <div class="seg">{OPS.map((o) => <button type="button" key={o.key} class={o.key === op ? 'on' : ''} onClick={() => setOp(o.key)}>{o.label}</button>)}</div>
          <select multiple class="multi" onChange={(e) => setPicked([...(e.target as HTMLSelectElement).selectedOptions].map((o) => o.value))}>
            {queues.map((q) => <option key={q} value={q} selected={shown.includes(q)}>{q}</option>)}
          </select>
        </div>
        <Chart span={window} frame={perQueueFrame} unit=" /s" />
      </Card>
      <Card title="Brokers" testid="workers" actions={d === undefined ? undefined : <span class="muted" data-testid="workers-count">{brokerCountText(d.system)}</span>}>
        <table class="list"><thead><tr><th>Worker ID</th><th>Hostname</th><th class="num">Avg EL</th><th class="num">Max EL</th><th class="num">Free slots</th><th class="num">DB conn</th><th class="num">In-flight</th><th>Last seen</th><th>State</th></tr></thead><tbody>
          {(d?.system.replicas ?? []).map((r) => {
            const els = r.timeSeries.map((p) => p.metrics.eventLoop.lagMs);
            const avgEl = els.length === 0 ? null : els.reduce((a, b) => a + b, 0) / els.length;
            const maxEl = max(els);
            const last = r.timeSeries[r.timeSeries.length - 1];
            // A stopped broker is in neither list once its row aged out: its last sample says when it was last seen.
            const seen = d?.shared?.processes.find((p) => p.serverId === r.workerId)?.lastHeartbeatAt ?? d?.status.workers.find((w) => w.workerId === r.workerId)?.lastSeen ?? last?.timestamp ?? null;
            return (
              <tr key={r.workerId} data-testid="worker-row" data-alive={String(r.alive)} class={r.alive ? '' : 'stopped'}><td class="mono">{r.workerId}</td><td>{r.hostname}</td>
                <td class={`num ${elClass(avgEl)}`}>{fmtMs(avgEl)}</td><td class={`num ${elClass(maxEl)}`}>{fmtMs(maxEl)}</td>
                <td class="num">{fmtCount(last?.metrics.database.idle)}</td><td class="num">{fmtCount(last?.metrics.database.poolSize)}</td><td class="num">{fmtCount(last?.metrics.registries.inflightRequests)}</td><td>{fmtAgo(seen)}</td><td data-testid="worker-state">{r.alive ? 'running' : 'stopped'}</td></tr>
            );
          })}
        </tbody></table>
        {latest(tp.series[0]?.values ?? []) === null && d !== undefined && d.system.replicas.length === 0 && <Empty>No system samples in this period</Empty>}
      </Card>
    </div>
  );
}
