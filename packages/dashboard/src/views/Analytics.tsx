/**
 * Analytics `/analytics` (docs/dashboard.md): message flow over time, top queues by volume, status
 * distribution, counts, leases, DLQ and workers; range and queue/namespace/task filters in the URL.
 */
import { broker, filters, http } from '../api.js';
import { Chart } from '../components/Chart.js';
import { Bar, Card, ErrorNote, Facts, RangePicker, Select } from '../components/ui.js';
import { fmtCount, fmtMs } from '../format.js';
import { useLoad } from '../load.js';
import { useQueryState } from '../router.js';
import { latest, rangeParams } from '../series.js';
import { THRESHOLDS as T } from '../thresholds.js';
import { brokerCountText, bucketSeconds, runningOnly, systemFrame } from './common.js';
import { frameFrom } from '../series.js';

/** The analytics page. */
export function AnalyticsView() {
  const [query, setQuery] = useQueryState();
  const range = query.get('range') ?? '1h';
  const queue = query.get('queue') ?? '';
  const namespace = query.get('namespace') ?? '';
  const task = query.get('task') ?? '';
  const filtered = queue !== '' || namespace !== '' || task !== '';
  const data = useLoad(async () => {
    const r = rangeParams(range);
    const f = { queue, namespace, task };
    const [status, queues, namespaces, tasks, system] = await Promise.all([
      broker.getStatus(http(), { ...r, ...filters(f) }),
      broker.listQueueStatus(http(), { limit: 500, ...filters({ namespace, task }) }),
      broker.listNamespaces(http()),
      broker.listTasks(http()),
      broker.getSystemMetrics(http(), r),
    ]);
    return { status, queues: queues.queues, namespaces: namespaces.namespaces, tasks: tasks.tasks, system };
  }, [range, queue, namespace, task]);
  const d = data.data;
  const st = d?.status;
  const flow = st === undefined ? { x: [], series: [] } : frameFrom(st.throughput, bucketSeconds(st.bucketMinutes) * 1000, ['ingested', 'processed'], (p) => [p.ingested, p.processed]);
  const top = [...(d?.queues ?? [])].sort((a, b) => b.messages.total - a.messages.total).slice(0, 8);
  const maxTop = Math.max(1, ...top.map((q) => q.messages.total));
  const m = st?.messages;
  const dist: [string, number][] = m === undefined ? [] : (filtered
    ? [['pending', m.pending], ['processing', m.processing]]
    : [['pending', m.pending], ['processing', m.processing], ['completed', m.completed], ['failed', m.failed], ['dead letter', m.deadLetter]]) as [string, number][];
  const distTotal = Math.max(1, dist.reduce((a, [, v]) => a + v, 0));
  const el = d === undefined ? null : latest(systemFrame(runningOnly(d.system), ['lag'], (p) => [p.metrics.eventLoop.lagMs], 'avg').series[0]!.values);
  const pool = d === undefined ? null : systemFrame(runningOnly(d.system), ['idle', 'size', 'inflight'], (p) => [p.metrics.database.idle, p.metrics.database.poolSize, p.metrics.registries.inflightRequests]);
  const workersOk = el === null ? null : el < T.eventLoopMs.warn;
  return (
    <div class="stack">
      <div class="toolbar">
        <RangePicker value={range} options={['1h', '6h', '24h', '7d']} onChange={(v) => setQuery({ range: v === '1h' ? null : v })} />
        <Select label="Queue" value={queue} testid="an-queue" options={[{ value: '', label: 'All' }, ...(d?.queues ?? []).map((q) => ({ value: q.name, label: q.name }))]} onChange={(v) => setQuery({ queue: v })} />
        <Select label="Namespace" value={namespace} options={[{ value: '', label: 'All' }, ...(d?.namespaces ?? []).filter((n) => n.namespace !== '').map((n) => ({ value: n.namespace, label: n.namespace }))]} onChange={(v) => setQuery({ namespace: v })} />
        <Select label="Task" value={task} options={[{ value: '', label: 'All' }, ...(d?.tasks ?? []).filter((t) => t.task !== '').map((t) => ({ value: t.task, label: t.task }))]} onChange={(v) => setQuery({ task: v })} />
        {filtered && <button type="button" class="btn plain" onClick={() => setQuery({ queue: null, namespace: null, task: null })}>Clear</button>}
      </div>
      <ErrorNote error={data.error} stale={d !== undefined} />
      <Card title="Message flow over time"><Chart frame={flow} span={rangeParams(range)} bars testid="flow-chart" /></Card>
      <div class="grid2">
        <Card title="Top queues by volume" testid="top-volume">
          <table class="list"><thead><tr><th>Queue</th><th class="num">Total</th><th class="num">Pending</th><th class="num">Processing</th><th /></tr></thead><tbody>
            {top.map((q) => <tr key={q.name} data-testid="volume-row"><td>{q.name}</td><td class="num">{fmtCount(q.messages.total)}</td><td class="num">{fmtCount(q.messages.pending)}</td><td class="num">{fmtCount(q.messages.processing)}</td><td style={{ width: '30%' }}><Bar value={q.messages.total} max={maxTop} /></td></tr>)}
          </tbody></table>
        </Card>
        <Card title="Message status distribution" testid="distribution">
          <table class="list"><tbody>
            {dist.filter(([, v]) => v > 0).map(([k, v]) => <tr key={k}><td>{k}</td><td class="num" data-testid={`dist-${k.replace(' ', '-')}`}>{fmtCount(v)}</td><td class="num muted">{((v / distTotal) * 100).toFixed(1)}%</td><td style={{ width: '40%' }}><Bar value={v} max={distTotal} tone={k === 'dead letter' || k === 'failed' ? 'bad' : ''} /></td></tr>)}
          </tbody></table>
        </Card>
      </div>
      <div class="grid3">
        <Card title="Message counts"><Facts testid="an-counts" rows={(m === undefined ? [] : filtered
          ? [['Total', fmtCount(m.total)], ['Pending', fmtCount(m.pending)], ['Processing', fmtCount(m.processing)]]
          : [['Total', fmtCount(m.total)], ['Pending', fmtCount(m.pending)], ['Processing', fmtCount(m.processing)], ['Completed', fmtCount(m.completed)], ['Failed', fmtCount(m.failed)], ['Dead letter', fmtCount(m.deadLetter)]]) as [string, string][]} /></Card>
        <Card title="Active leases"><Facts testid="an-leases" rows={st === undefined ? [] : [['Active', fmtCount(st.leases.active)], ['Partitions with leases', fmtCount(st.leases.partitionsWithLeases)], ['Total batch size', fmtCount(st.leases.totalBatchSize)], ['Total acked', fmtCount(st.leases.totalAcked)]]} /></Card>
        <Card title="Dead letter queue"><Facts testid="an-dlq" rows={st === undefined ? [] : [['Total', fmtCount(st.deadLetterQueue.totalMessages)], ['Affected partitions', fmtCount(st.deadLetterQueue.affectedPartitions)], ...st.deadLetterQueue.topErrors.slice(0, 3).map((e) => [e.error, fmtCount(e.count)] as [string, string])]} /></Card>
        <Card title="Workers"><Facts testid="an-workers" rows={d === undefined ? [] : [
          ['Brokers', brokerCountText(d.system)], ['Avg event loop', fmtMs(el)],
          ['Pool free / total', `${fmtCount(latest(pool!.series[0]!.values))} / ${fmtCount(latest(pool!.series[1]!.values))}`], ['In-flight requests', fmtCount(latest(pool!.series[2]!.values))],
          ['Health', workersOk === null ? 'no samples in range' : workersOk ? 'event loop healthy' : 'event loop slow'],
        ]} /></Card>
      </div>
    </div>
  );
}
