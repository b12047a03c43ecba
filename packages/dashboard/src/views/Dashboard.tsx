/**
 * Dashboard `/` (DASHBOARD.md 3.1): counts strip, metric rows (Now value, context, sparkline that expands into
 * a chart), top queues by pending and consumer groups by lag. Polls every 30 s; the range refetches the series.
 */
import { useState } from 'preact/hooks';
import { get, withQuery } from '../api.js';
import { queueList } from '../cache.js';
import { Chart } from '../components/Chart.js';
import { Bar, Card, Empty, ErrorNote, RangePicker, Sparkline, Stat } from '../components/ui.js';
import { fmtCount, fmtDuration, fmtMs, fmtRate, severity } from '../format.js';
import { POLL_MS, useLoad, useNow } from '../load.js';
import { useQueryState } from '../router.js';
import { avg, frameFrom, latest, max, rangeParams, sum, type Frame } from '../series.js';
import type { GroupRow, Overview, QueueOpsRow, Status, SystemMetrics, WorkerMetrics } from '../types.js';
import { bucketSeconds, lagFrame, pendingDeltaFrame, queueOpsFrame, retentionAll, retentionFrame, systemFrame, throughputFrame } from './common.js';

interface Row { key: string; label: string; now: string; tone: 'ok' | 'warn' | 'bad'; context: string; frame: Frame; unit?: string; href?: string }

function MetricRow(props: { row: Row; open: boolean; onToggle: () => void; range: string }) {
  const r = props.row;
  return (
    <>
      <tr class="metric-row click" data-testid={`metric-${r.key}`} onClick={props.onToggle}>
        <td><span class={`sev ${r.tone}`} /></td>
        <td>{r.label}</td>
        <td class="num"><b data-testid={`now-${r.key}`}>{r.now}</b></td>
        <td class="muted">{r.context}{r.href !== undefined && <> · <a href={r.href} onClick={(e) => e.stopPropagation()}>details</a></>}</td>
        <td><Sparkline values={r.frame.series[0]?.values ?? []} /></td>
      </tr>
      {props.open && <tr><td colSpan={5}><Chart frame={r.frame} unit={r.unit} span={rangeParams(props.range)} /></td></tr>}
    </>
  );
}

/** The overview page. */
export function DashboardView() {
  const [query, setQuery] = useQueryState();
  const range = query.get('range') ?? '1h';
  const [open, setOpen] = useState<Set<string>>(new Set());
  const now = useNow();
  // The counts come from the overview alone (one cheap call), so they show before the heavier lists.
  const counts = useLoad(() => get<Overview>('/api/v1/resources/overview'), [], POLL_MS);
  // The heavier calls start once the counts arrived, so that on a big installation the first figures are not
  // queued behind them on the broker.
  const started = counts.at !== null || counts.error !== null;
  const lists = useLoad(async () => {
    if (!started) return undefined;
    const [queues, groups] = await Promise.all([queueList(true), get<GroupRow[]>('/api/v1/consumer-groups')]);
    return { queues, groups };
  }, [started], POLL_MS);
  const series = useLoad(async () => {
    if (!started) return undefined;
    const { from, to } = rangeParams(range);
    const q = { from, to };
    const [status, worker, system, ops, retention] = await Promise.all([
      get<Status>(withQuery('/api/v1/status', q)),
      get<WorkerMetrics>(withQuery('/api/v1/analytics/worker-metrics', q)),
      get<SystemMetrics>(withQuery('/api/v1/analytics/system-metrics', q)),
      get<QueueOpsRow[]>(withQuery('/api/v1/analytics/queue-ops', q)),
      retentionAll(from, to),
    ]);
    return { status, worker, system, ops, retention };
  }, [range, started], POLL_MS);

  const ov = counts.data;
  const c = lists.data;
  const s = series.data;
  const rows: Row[] = [];
  if (ov !== undefined && s !== undefined) {
    const tp = throughputFrame(s.worker);
    const peak = max(tp.series.flatMap((x) => x.values));
    const nowRate = ov.throughput.ingestedPerSecond > 0 ? ov.throughput.ingestedPerSecond : ov.throughput.processedPerSecond;
    rows.push({ key: 'throughput', label: 'Throughput (/s)', now: fmtRate(nowRate), tone: 'ok', context: peak !== null && peak > 0 ? `peak ${fmtRate(peak)} /s` : 'idle', frame: tp, unit: ' /s' });
    const pd = pendingDeltaFrame(s.status);
    const pdNow = latest(pd.series[0]!.values) ?? 0;
    rows.push({ key: 'pending-delta', label: 'Pending Δ', now: fmtCount(pdNow), tone: pdNow > 100_000 ? 'bad' : pdNow > 1000 ? 'warn' : 'ok', context: pdNow > 0 ? 'filling' : pdNow < 0 ? 'draining' : 'steady', frame: pd });
    const parked = systemFrame(s.system, ['parked pops'], (p) => [p.metrics.registries.parkedPops]);
    rows.push({ key: 'parked', label: 'Parked', now: fmtCount(latest(parked.series[0]!.values) ?? 0), tone: 'ok', context: `avg ${fmtRate(avg(parked.series[0]!.values) ?? 0)} in window`, frame: parked });
    const lag = lagFrame(s.status);
    rows.push({ key: 'lag', label: 'Time lag', now: `${fmtDuration(ov.lag.time.avg)} / ${fmtDuration(ov.lag.time.max)}`, tone: severity(ov.lag.time.max, 60, 300), context: 'avg / max of pending messages', frame: lag, unit: ' ms' });
    const bucketMs = bucketSeconds(s.worker.bucketMinutes) * 1000;
    const ackFailed = queueOpsFrame(s.ops, bucketMs, ['ackFailed'], ['ack failed']);
    const errFrame = frameFrom(s.worker.timeSeries, bucketMs, ['errors'], (p) => [p.errors]);
    const e = s.status.errors;
    rows.push({
      key: 'errors', label: 'Errors', now: fmtCount(e.dbErrors + e.ackFailed), href: '/dlq',
      tone: e.dbErrors > 0 || e.ackFailed > 100 ? 'bad' : e.ackFailed > 0 || e.dlqMessages > 0 ? 'warn' : 'ok',
      context: `db ${fmtCount(e.dbErrors)} · ack ${fmtCount(e.ackFailed)} · dlq ${fmtCount(e.dlqMessages)} · ack failed in window ${fmtCount(sum(ackFailed.series[0]!.values))}`, frame: errFrame,
    });
    const el = systemFrame(s.system, ['avg ms', 'max ms'], (p) => [p.metrics.eventLoop.lagMs, p.metrics.eventLoop.lagMs], 'avg');
    const elMax = systemFrame(s.system, ['max ms'], (p) => [p.metrics.eventLoop.lagMs], 'max');
    el.series[1] = elMax.series[0]!;
    const elNow = latest(elMax.series[0]!.values);
    rows.push({ key: 'event-loop', label: 'Event loop', now: fmtMs(elNow), tone: severity(elNow, 50, 100), context: `avg ${fmtMs(latest(el.series[0]!.values))} across ${s.system.replicaCount} replica(s)`, frame: el, unit: ' ms' });
    const cpu = systemFrame(s.system, ['user %', 'system %'], (p) => [p.metrics.cpu.userPercent, p.metrics.cpu.systemPercent], 'max');
    const cpuNow = (latest(cpu.series[0]!.values) ?? 0) + (latest(cpu.series[1]!.values) ?? 0);
    rows.push({ key: 'cpu', label: 'Queen CPU %', now: `${cpuNow.toFixed(1)}%`, tone: severity(cpuNow, 70, 90), context: 'user + system of the hottest replica', frame: cpu, unit: '%' });
    const pool = systemFrame(s.system, ['active', 'idle', 'size', 'waiting'], (p) => [p.metrics.database.active, p.metrics.database.idle, p.metrics.database.poolSize, p.metrics.database.waiting]);
    const active = latest(pool.series[0]!.values) ?? 0;
    const size = latest(pool.series[2]!.values) ?? 0;
    rows.push({ key: 'db-pool', label: 'DB pool', now: `${fmtRate(active)} / ${fmtRate(size)}`, tone: size > 0 && active >= size ? 'bad' : size > 0 && active / size > 0.8 ? 'warn' : 'ok', context: `idle ${fmtRate(latest(pool.series[1]!.values))} · waiting ${fmtRate(latest(pool.series[3]!.values))}`, frame: pool });
    rows.push({ key: 'partitions', label: 'Partitions', now: fmtCount(ov.partitions), tone: 'ok', context: 'current count (created/deleted per bucket not recorded)', frame: { x: [], series: [] } });
    const ret = retentionFrame(s.retention, bucketSeconds(s.status.bucketMinutes) * 1000);
    const deleted = s.retention.history.reduce((a, h) => a + h.deleted, 0);
    const evicted = s.retention.history.filter((h) => h.kind === 'eviction').reduce((a, h) => a + h.deleted, 0);
    rows.push({ key: 'retention', label: 'Retention', now: fmtCount(deleted), tone: evicted > 0 ? 'warn' : 'ok', context: `deleted in window (${fmtCount(evicted)} evicted)`, frame: ret });
  }

  const topQueues = c === undefined ? [] : [...c.queues].sort((a, b) => b.messages.pending - a.messages.pending).slice(0, 6);
  const maxDepth = Math.max(1, ...topQueues.map((q) => q.messages.pending));
  const lagByQueue = new Map<string, number>();
  for (const g of c?.groups ?? []) lagByQueue.set(g.queueName, Math.max(lagByQueue.get(g.queueName) ?? 0, g.maxTimeLag));
  const topGroups = c === undefined ? [] : [...c.groups].sort((a, b) => b.maxTimeLag - a.maxTimeLag).slice(0, 6);
  const eff = s?.status.messages.batchEfficiency;
  return (
    <div class="stack">
      <div class="toolbar">
        <RangePicker value={range} options={['1h', '6h', '24h']} onChange={(v) => setQuery({ range: v === '1h' ? null : v })} />
        <button type="button" class="btn plain" onClick={() => setOpen(open.size > 0 ? new Set() : new Set(rows.map((r) => r.key)))}>{open.size > 0 ? 'Collapse all' : 'Expand all'}</button>
        <span class="grow" />
        <span class="muted" data-testid="last-refresh">{counts.at === null ? 'loading…' : `last refresh ${Math.round((now - counts.at) / 1000)}s ago`}</span>
      </div>
      <ErrorNote error={counts.error ?? lists.error ?? series.error} stale={ov !== undefined} />
      <div class="strip" data-testid="counts">
        <Stat label="Messages" value={fmtCount(ov?.messages.total)} testid="count-messages" href="/messages" />
        <Stat label="Queues" value={fmtCount(ov?.queues)} testid="count-queues" href="/queues" />
        <Stat label="Partitions" value={fmtCount(ov?.partitions)} testid="count-partitions" />
        <Stat label="Consumer groups" value={fmtCount(c === undefined ? undefined : new Set(c.groups.filter((g) => g.name !== '__QUEUE_MODE__').map((g) => g.name)).size)} testid="count-groups" href="/consumers" />
        <Stat label="Pending" value={fmtCount(ov?.messages.pending)} testid="count-pending" tone={severity(ov?.messages.pending, 1000, 10_000)} />
        <Stat label="Completed" value={fmtCount(ov?.messages.completed)} testid="count-completed" />
        <Stat label="Batch eff (push / pop / ack)" value={eff === undefined ? '–' : `${fmtRate(eff.push)} / ${fmtRate(eff.pop)} / ${fmtRate(eff.ack)}`} testid="batch-eff" />
      </div>
      <Card title="Metrics">
        {rows.length === 0 ? <div class="skeleton" /> : (
          <table class="metrics" data-testid="metric-table"><tbody>
            {rows.map((r) => <MetricRow key={r.key} range={range} row={r} open={open.has(r.key)} onToggle={() => { const n = new Set(open); if (n.has(r.key)) n.delete(r.key); else n.add(r.key); setOpen(n); }} />)}
          </tbody></table>
        )}
      </Card>
      <div class="grid2">
        <Card title="Top queues by pending" actions={<a href="/queues">See all</a>} testid="top-queues">
          {c !== undefined && topQueues.length === 0 ? <Empty>No queues</Empty> : (
            <table class="list"><thead><tr><th>Queue</th><th class="num">Pending</th><th>Depth</th><th class="num">Worst lag</th><th class="num">Partitions</th></tr></thead><tbody>
              {topQueues.map((q) => {
                const lag = lagByQueue.get(q.name) ?? 0;
                const tone = lag >= 300 || q.messages.pending > 0.8 * maxDepth ? 'bad' : lag >= 60 || q.messages.pending > 0.5 * maxDepth ? 'warn' : 'ok';
                return (
                  <tr key={q.name} data-testid="top-queue"><td><a href={`/queues/${encodeURIComponent(q.name)}`}>{q.name}</a></td><td class="num" data-testid="top-queue-pending">{fmtCount(q.messages.pending)}</td>
                    <td><Bar value={q.messages.pending} max={maxDepth} tone={tone} /></td><td class="num">{fmtDuration(lag)}</td><td class="num">{fmtCount(q.partitions)}</td></tr>
                );
              })}
            </tbody></table>
          )}
        </Card>
        <Card title="Consumer groups by lag" actions={<a href="/consumers">See all</a>} testid="top-groups">
          {c !== undefined && topGroups.length === 0 ? <Empty>No consumer groups</Empty> : (
            <table class="list"><thead><tr><th>Group</th><th>Queue</th><th class="num">Members</th><th class="num">Lag</th><th>State</th></tr></thead><tbody>
              {topGroups.map((g) => {
                const lagging = g.maxTimeLag >= 60 || g.partitionsWithLag > 0;
                return (
                  <tr key={`${g.name}/${g.queueName}`} data-testid="top-group"><td><a href={`/consumers?search=${encodeURIComponent(g.name === '__QUEUE_MODE__' ? g.queueName : g.name)}`}>{g.name === '__QUEUE_MODE__' ? 'queue mode' : g.name}</a></td>
                    <td>{g.queueName}</td><td class="num">{fmtCount(g.members)}</td><td class={`num ${lagging ? 'warn' : ''}`}>{fmtDuration(g.maxTimeLag)}</td><td>{g.state}</td></tr>
                );
              })}
            </tbody></table>
          )}
        </Card>
      </div>
    </div>
  );
}
