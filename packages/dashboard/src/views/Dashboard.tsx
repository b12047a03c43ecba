/**
 * Dashboard `/` (docs/dashboard.md): counts strip, metric rows (Now value, context, sparkline that expands into
 * a chart), top queues by pending and consumer groups by lag. Polls every 30 s; the range refetches the series.
 */
import { useState } from 'preact/hooks';
import { broker, http } from '../api.js';
import { queueList } from '../cache.js';
import { Chart } from '../components/Chart.js';
import { Bar, Card, Empty, ErrorNote, RangePicker, Sparkline, Stat } from '../components/ui.js';
import { fmtClock, fmtCount, fmtDuration, fmtMs, fmtRate, severity, signed } from '../format.js';
import { POLL_MS, useLoad, useNow } from '../load.js';
import { useQueryState } from '../router.js';
import { avg, frameFrom, latest, max, rangeParams, sum, type Frame } from '../series.js';
import { THRESHOLDS as T } from '../thresholds.js';
import { brokerCountText, bucketSeconds, lagFrame, netFlow, pendingFrame, retentionAll, retentionFrame, runningOnly, systemFrame, throughputFrame } from './common.js';

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
  const counts = useLoad(() => broker.getOverview(http()), [], POLL_MS);
  // The heavier calls start once the counts arrived, so that on a big installation the first figures are not
  // queued behind them on the broker.
  const started = counts.at !== null || counts.error !== null;
  const lists = useLoad(async () => {
    if (!started) return undefined;
    const [queues, groups] = await Promise.all([queueList(true), broker.listConsumerGroups(http())]);
    return { queues, groups };
  }, [started], POLL_MS);
  const series = useLoad(async () => {
    if (!started) return undefined;
    const { from, to } = rangeParams(range);
    const q = { from, to };
    const [status, worker, system, ops, retention] = await Promise.all([
      broker.getStatus(http(), q),
      broker.getWorkerMetrics(http(), q),
      broker.getSystemMetrics(http(), q),
      broker.getQueueOps(http(), q),
      retentionAll(from, to),
    ]);
    return { status, worker, system, ops, retention };
  }, [range, started], POLL_MS);

  const ov = counts.data;
  const c = lists.data;
  const s = series.data;
  const rows: Row[] = [];
  if (ov !== undefined && s !== undefined) {
    // Every figure of a row comes from the series it draws, so "now" never exceeds the peak beside it.
    const tp = throughputFrame(s.worker);
    const pushNow = latest(tp.series[0]!.values);
    const peak = max(tp.series[0]!.values);
    // Pushes of the open minute are not a rate yet: they are said as a count, never hidden behind "idle".
    const pushedOpen = s.worker.summary.pushMessages - sum(tp.series[0]!.values) * bucketSeconds(s.worker.bucketMinutes);
    const openNote = pushedOpen > 0.5 ? `${fmtCount(Math.round(pushedOpen))} pushed in the current minute (a rate once it completes)` : '';
    rows.push({ key: 'throughput', label: 'Push rate (msg/s)', now: pushNow === null ? '–' : fmtRate(pushNow), tone: 'ok', frame: tp, unit: ' /s',
      context: peak !== null && peak > 0 ? `peak ${fmtRate(peak)} /s in ${range} · pop ${fmtRate(latest(tp.series[1]!.values) ?? 0)} · ack ${fmtRate(latest(tp.series[2]!.values) ?? 0)} /s now${openNote === '' ? '' : ` · ${openNote}`}`
        : openNote !== '' ? openNote : pushNow === null ? 'no complete minute yet' : 'idle' });
    // Net flow = how pending changed over the range, from the broker's once-a-minute pending samples: acks count
    // once per consumer group, so "pushed − acked" says "draining" while a slow group lets pending grow.
    const pd = pendingFrame(s.status);
    const flow = netFlow(s.status);
    const pushed = s.status.throughput.reduce((a, p) => a + p.ingested, 0);
    rows.push({
      key: 'pending-delta', label: `Net flow (${range})`, now: flow === null ? '–' : signed(flow.change), tone: 'ok', frame: pd,
      context: flow === null
        ? `pending is sampled once a minute: the change shows from the second sample · ${fmtCount(ov.messages.pending)} pending now`
        : `${flow.change > 0 ? 'filling' : flow.change < 0 ? 'draining' : 'steady'}: ${fmtCount(flow.from)} pending at ${fmtClock(flow.at)} → ${fmtCount(ov.messages.pending)} pending now · pushed ${fmtCount(pushed)} in ${range}`,
    });
    // A stopped broker's samples stay in the window: "now" figures are of the running brokers only.
    const sys = runningOnly(s.system);
    const brokers = brokerCountText(s.system);
    const parked = systemFrame(sys, ['parked pops'], (p) => [p.metrics.registries.parkedPops]);
    rows.push({ key: 'parked', label: 'Parked pops', now: fmtCount(latest(parked.series[0]!.values) ?? 0), tone: 'ok', context: `long-poll pops waiting, summed over ${brokers} broker(s) · avg ${fmtRate(avg(parked.series[0]!.values) ?? 0)} in ${range}`, frame: parked });
    const lag = lagFrame(s.status);
    rows.push({ key: 'lag', label: 'Time lag', now: `${fmtDuration(ov.lag.time.avg)} / ${fmtDuration(ov.lag.time.max)}`, tone: severity(ov.lag.time.max, T.lagSeconds.warn, T.lagSeconds.bad), context: 'avg / max age of pending messages now', frame: lag, unit: ' ms' });
    const bucketMs = bucketSeconds(s.worker.bucketMinutes) * 1000;
    const errFrame = frameFrom(s.worker.timeSeries, bucketMs, ['errors'], (p) => [p.errors]);
    const e = s.status.errors;
    const dlqNow = s.status.deadLetterQueue.totalMessages;
    rows.push({
      key: 'errors', label: `Errors (${range})`, now: fmtCount(e.dbErrors + e.ackFailed), href: '/dlq',
      // The dot is the figure beside it (database errors + failed acks); moves to the DLQ are in the context.
      tone: e.dbErrors > 0 || e.ackFailed >= T.ackFailed.bad ? 'bad' : e.ackFailed >= T.ackFailed.warn ? 'warn' : 'ok',
      context: `in ${range}: database ${fmtCount(e.dbErrors)} · failed acks ${fmtCount(e.ackFailed)} · moved to DLQ ${fmtCount(e.dlqMessages)} — ${fmtCount(dlqNow)} in the DLQ now`, frame: errFrame,
    });
    const el = systemFrame(sys, ['avg ms', 'max ms'], (p) => [p.metrics.eventLoop.lagMs, p.metrics.eventLoop.lagMs], 'avg');
    const elMax = systemFrame(sys, ['max ms'], (p) => [p.metrics.eventLoop.lagMs], 'max');
    el.series[1] = elMax.series[0]!;
    const elNow = latest(elMax.series[0]!.values);
    rows.push({ key: 'event-loop', label: 'Event loop (ms)', now: fmtMs(elNow), tone: severity(elNow, T.eventLoopMs.warn, T.eventLoopMs.bad), context: `worst broker; avg ${fmtMs(latest(el.series[0]!.values))} · brokers: ${brokers}`, frame: el, unit: ' ms' });
    const cpu = systemFrame(sys, ['user %', 'system %'], (p) => [p.metrics.cpu.userPercent, p.metrics.cpu.systemPercent], 'max');
    const cpuUser = latest(cpu.series[0]!.values);
    const cpuNow = cpuUser === null ? null : cpuUser + (latest(cpu.series[1]!.values) ?? 0);
    rows.push({ key: 'cpu', label: 'Queen CPU %', now: cpuNow === null ? '–' : `${cpuNow.toFixed(1)}%`, tone: severity(cpuNow, T.cpuPercent.warn, T.cpuPercent.bad), context: 'user + system of the busiest running broker (% of one core)', frame: cpu, unit: '%' });
    const pool = systemFrame(sys, ['in use', 'idle', 'size', 'waiting'], (p) => [p.metrics.database.active, p.metrics.database.idle, p.metrics.database.poolSize, p.metrics.database.waiting]);
    const activeNow = latest(pool.series[0]!.values);
    const active = Math.round(activeNow ?? 0);
    const size = Math.round(latest(pool.series[2]!.values) ?? 0);
    // No complete minute of samples yet (a broker just started): "–", not "0 / 0".
    rows.push({ key: 'db-pool', label: 'DB pool (in use / open)', now: activeNow === null ? '–' : `${fmtCount(active)} / ${fmtCount(size)}`, tone: size > 0 ? severity(active / size, T.poolUse.warn, T.poolUse.bad) : 'ok', context: `connections in use of those open, running brokers summed (minute averages, rounded) · idle ${fmtCount(Math.round(latest(pool.series[1]!.values) ?? 0))} · callers waiting ${fmtCount(Math.round(latest(pool.series[3]!.values) ?? 0))}`, frame: pool });
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
        <Stat label="Pending" value={fmtCount(ov?.messages.pending)} testid="count-pending" tone={severity(ov?.messages.pending, T.pending.warn, T.pending.bad)} />
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
                // Colour is severity at fixed thresholds (thresholds.ts); the bar's length is relative to the deepest.
                const sevs = [severity(q.messages.pending, T.pending.warn, T.pending.bad), severity(lag, T.lagSeconds.warn, T.lagSeconds.bad)];
                const tone = sevs.includes('bad') ? 'bad' : sevs.includes('warn') ? 'warn' : 'ok';
                return (
                  <tr key={q.name} data-testid="top-queue"><td><a href={`/queues/${encodeURIComponent(q.name)}`}>{q.name}</a></td><td class="num" data-testid="top-queue-pending">{fmtCount(q.messages.pending)}</td>
                    <td data-testid="top-queue-bar" data-tone={tone}><Bar value={q.messages.pending} max={maxDepth} tone={tone} /></td><td class="num">{fmtDuration(lag)}</td><td class="num">{fmtCount(q.partitions)}</td></tr>
                );
              })}
            </tbody></table>
          )}
        </Card>
        <Card title="Consumer groups by lag" actions={<a href="/consumers">See all</a>} testid="top-groups">
          {c !== undefined && topGroups.length === 0 ? <Empty>No consumer groups</Empty> : (
            <table class="list"><thead><tr><th>Group</th><th>Queue</th><th class="num">Members</th><th class="num">Lag</th><th>State</th></tr></thead><tbody>
              {topGroups.map((g) => {
                const lagTone = severity(g.maxTimeLag, T.lagSeconds.warn, T.lagSeconds.bad);
                return (
                  <tr key={`${g.name}/${g.queueName}`} data-testid="top-group"><td><a href={`/consumers?search=${encodeURIComponent(g.name === '__QUEUE_MODE__' ? g.queueName : g.name)}`}>{g.name === '__QUEUE_MODE__' ? 'queue mode' : g.name}</a></td>
                    <td>{g.queueName}</td><td class="num">{fmtCount(g.members)}</td><td class={`num ${lagTone === 'ok' ? '' : lagTone}`} data-testid="top-group-lag">{fmtDuration(g.maxTimeLag)}</td><td>{g.state}</td></tr>
                );
              })}
            </tbody></table>
          )}
        </Card>
      </div>
    </div>
  );
}
