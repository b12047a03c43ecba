/**
 * System `/system` (docs/dashboard.md): system resources per replica or aggregated (CPU, memory, pool,
 * waiting and in-flight, heap, event loop, parked pops), the cluster (processes and heartbeats, buffer health,
 * "refresh stats" with statsAge), and the PostgreSQL statistics snapshot.
 */
import { broker, http } from '../api.js';
import { Chart } from '../components/Chart.js';
import { Action, Card, Empty, ErrorNote, Facts, RangePicker, Select } from '../components/ui.js';
import { fmtAgo, fmtBytes, fmtCount, fmtMs, fmtPercent, fmtTime } from '../format.js';
import { refreshAll, useLoad } from '../load.js';
import { useQueryState } from '../router.js';
import { latest, rangeParams, type Frame } from '../series.js';
import { allows, session } from '../session.js';
import { useStore } from '../store.js';
import type { PgStats, SharedState, SystemPoint } from '../types.js';
import { brokerCountText, perReplicaFrame, runningOnly, systemFrame } from './common.js';
import { toast } from '../components/toasts.js';

function Rows<T>(props: { rows: T[] | undefined; head: string[]; cells: (r: T) => (string | number)[]; empty: string; testid?: string }) {
  if (props.rows === undefined || props.rows.length === 0) return <Empty>{props.empty}</Empty>;
  return (
    <table class="list" data-testid={props.testid}><thead><tr>{props.head.map((h) => <th key={h}>{h}</th>)}</tr></thead><tbody>
      {props.rows.map((r, i) => <tr key={i}>{props.cells(r).map((c, j) => <td key={j} class={typeof c === 'number' ? 'num' : ''}>{typeof c === 'number' ? fmtCount(c) : c}</td>)}</tr>)}
    </tbody></table>
  );
}

function Postgres() {
  const pg = useLoad(() => broker.getPostgresStats(http()), []);
  const p = pg.data;
  if (p === undefined) return <><ErrorNote error={pg.error} /><div class="skeleton" /></>;
  return (
    <div class="stack">
      <ErrorNote error={pg.error} stale />
      <Card title="Cache performance" testid="pg-cache">
        <Facts rows={[
          ['Database', `${p.database.name} · PostgreSQL ${p.database.serverVersion} · ${p.database.size}`], ['Connections', `${p.database.connections} / ${p.database.maxConnections}`],
          ['Database hit ratio', <span data-testid="pg-hit-ratio">{fmtPercent(p.databaseCache.hitRatio)}</span>], ['Table hit ratio', fmtPercent(p.cacheSummary?.tableHitRatio)],
          ['Index hit ratio', fmtPercent(p.cacheSummary?.indexHitRatio)], ['Shared buffers', p.bufferConfig?.sharedBuffers ?? '–'], ['Deadlocks', fmtCount(p.database.deadlocks)],
        ]} />
      </Card>
      <div class="grid2">
        <Card title="Table cache"><Rows rows={p.tableCache} head={['Table', 'Hit', 'Read', 'Hit ratio']} cells={(r) => [r.table, r.blocksHit, r.blocksRead, fmtPercent(r.hitRatio)]} empty="No tables" /></Card>
        <Card title="Index cache (top 20 by disk reads)"><Rows rows={[...p.indexCache].sort((a, b) => b.blocksRead - a.blocksRead).slice(0, 20)} head={['Index', 'Table', 'Read', 'Hit ratio']} cells={(r) => [r.index, r.table, r.blocksRead, fmtPercent(r.hitRatio)]} empty="No indexes" /></Card>
        <Card title="Buffer cache contents"><Rows rows={p.bufferUsage} head={['Relation', '% of shared buffers']} cells={(r) => [r.relation, r.percentOfSharedBuffers === null ? '–' : `${r.percentOfSharedBuffers}%`]} empty="No buffer data (the pg_buffercache extension is not installed)" /></Card>
        <Card title="Table sizes"><Rows rows={p.tableSizes} head={['Table', 'Total', 'Table', 'Indexes']} cells={(r) => [r.table, r.totalSize, fmtBytes(r.tableBytes), fmtBytes(r.indexBytes)]} empty="No tables" /></Card>
        <Card title="Dead tuples"><Rows rows={p.deadTuples?.filter((r) => r.deadTuples > 0)} head={['Table', 'Dead', 'Live', 'Dead ratio']} cells={(r) => [r.table, r.deadTuples, r.liveTuples, fmtPercent(r.deadRatio)]} empty="No dead tuples" /></Card>
        <Card title="HOT update efficiency"><Rows rows={p.hotUpdates} head={['Table', 'Updates', 'HOT', 'HOT ratio']} cells={(r) => [r.table, r.updates, r.hotUpdates, fmtPercent(r.hotRatio)]} empty="No updates" /></Card>
        <Card title="Active queries (> 1 s)"><Rows rows={p.activeQueries} head={['PID', 'State', 'Duration', 'Wait', 'SQL']} cells={(r) => [String(r.pid), r.state ?? '–', fmtMs(r.durationMs), r.waitEvent ?? '–', r.query?.slice(0, 120) ?? '–']} empty="No long-running queries" /></Card>
        <Card title="Autovacuum"><Rows rows={p.autovacuumStatus} head={['Table', 'Last autovacuum', 'Last autoanalyze']} cells={(r) => [r.table, fmtTime(r.lastAutovacuum), fmtTime(r.lastAutoanalyze)]} empty="No autovacuum data" /></Card>
      </div>
    </div>
  );
}

function Cluster() {
  const s = useStore(session);
  const data = useLoad(async () => {
    const [shared, buffers, overview] = await Promise.all([
      allows(session.get(), 'ADMIN') ? broker.getSharedState(http('ADMIN')).catch((): SharedState | null => null) : Promise.resolve(null),
      broker.getBufferStatus(http()),
      broker.getOverview(http()),
    ]);
    return { shared, buffers, overview };
  }, [s.role]);
  const d = data.data;
  const refresh = async (): Promise<void> => {
    try {
      await broker.refreshStats(http('ADMIN'));
      toast('Statistics refreshed');
      refreshAll();
    } catch (e) {
      toast((e as Error).message, 'bad');
    }
  };
  return (
    <Card title="Cluster" testid="cluster" actions={<><span class="muted" data-testid="stats-age">stats age {d === undefined ? '–' : `${d.overview.statsAge}s`}</span><Action needs="ADMIN" testid="stats-refresh" onClick={() => void refresh()}>Refresh stats</Action></>}>
      <ErrorNote error={data.error} />
      {d?.shared === null && <p class="muted">The process list needs an ADMIN token.</p>}
      {d?.shared !== null && d?.shared !== undefined && (
        <table class="list" data-testid="processes"><thead><tr><th>Server ID</th><th>Host</th><th class="num">PID</th><th>Started</th><th>Last heartbeat</th><th class="num">Parked pops</th></tr></thead><tbody>
          {d.shared.processes.map((p) => <tr key={p.serverId} data-testid="process-row"><td class="mono">{p.serverId}{p.serverId === d.shared!.serverId ? ' (this one)' : ''}</td><td>{p.hostname}</td><td class="num">{p.pid}</td><td>{fmtTime(p.startedAt)}</td><td>{fmtAgo(p.lastHeartbeatAt)}</td><td class="num">{fmtCount(p.parkedPops)}</td></tr>)}
        </tbody></table>
      )}
      {d !== undefined && <Facts testid="buffers" rows={[['Buffer pending', fmtCount(d.buffers.pending)], ['Buffer failed', fmtCount(d.buffers.failed)], ['Database', d.buffers.dbHealthy ? 'healthy' : 'unreachable'], ['Answered by', d.buffers.worker]]} />}
    </Card>
  );
}

/** The system page. */
export function SystemView() {
  const [query, setQuery] = useQueryState();
  const tab = query.get('tab') ?? 'resources';
  const range = query.get('range') ?? '1h';
  const mode = query.get('mode') ?? 'server';
  const agg = (query.get('agg') ?? 'avg') as 'avg' | 'max' | 'sum';
  const data = useLoad(() => (tab === 'resources' ? broker.getSystemMetrics(http(), rangeParams(range)) : Promise.resolve(null)), [tab, range]);
  const sm = data.data ?? null;
  const chart = (labels: string[], pick: (p: SystemPoint) => number[], single: (p: SystemPoint) => number): Frame => {
    if (sm === null) return { x: [], series: [] };
    return mode === 'server' && sm.replicas.length > 1 ? perReplicaFrame(sm, single) : systemFrame(sm, labels, pick, agg);
  };
  // "Latest" figures are of the running brokers: a stopped one's last samples are history, not now.
  const last = (sm === null ? [] : runningOnly(sm).replicas).map((r) => r.timeSeries[r.timeSeries.length - 1]).filter((p): p is SystemPoint => p !== undefined);
  const cpuNow = latest(last.map((p) => p.metrics.cpu.userPercent + p.metrics.cpu.systemPercent));
  return (
    <div class="stack">
      <div class="toolbar">
        <div class="seg"><button type="button" class={tab === 'resources' ? 'on' : ''} onClick={() => setQuery({ tab: null })}>System resources</button><button type="button" class={tab === 'postgres' ? 'on' : ''} data-testid="tab-postgres" onClick={() => setQuery({ tab: 'postgres' })}>Postgres stats</button></div>
        {tab === 'resources' && (
          <>
            <RangePicker value={range} options={['15m', '1h', '6h', '24h']} onChange={(v) => setQuery({ range: v === '1h' ? null : v })} />
            <Select label="View" value={mode} options={[{ value: 'server', label: 'Per server' }, { value: 'aggregate', label: 'Aggregate' }]} onChange={(v) => setQuery({ mode: v === 'server' ? null : v })} />
            <Select label="Across replicas" value={agg} options={[{ value: 'avg', label: 'Average' }, { value: 'max', label: 'Maximum' }, { value: 'sum', label: 'Sum' }]} onChange={(v) => setQuery({ agg: v === 'avg' ? null : v })} />
          </>
        )}
      </div>
      {tab === 'postgres' ? <Postgres /> : (
        <>
          <ErrorNote error={data.error} stale={sm !== null} />
          <div class="strip" data-testid="system-summary">
            <div class="stat"><div class="stat-label">Brokers</div><div class="stat-value" data-testid="sys-replicas">{sm === null ? '–' : brokerCountText(sm)}</div></div>
            <div class="stat"><div class="stat-label">Points</div><div class="stat-value">{fmtCount(sm?.replicas.reduce((a, r) => a + r.timeSeries.length, 0))}</div></div>
            <div class="stat"><div class="stat-label">Bucket</div><div class="stat-value">{sm === null ? '–' : `${sm.bucketMinutes} min`}</div></div>
            <div class="stat"><div class="stat-label">Latest CPU</div><div class="stat-value">{cpuNow === null ? '–' : `${cpuNow.toFixed(1)}%`}</div></div>
            <div class="stat"><div class="stat-label">Memory (RSS, running)</div><div class="stat-value">{fmtBytes(last.reduce((a, p) => a + p.metrics.memory.rss, 0))}</div></div>
            <div class="stat"><div class="stat-label">DB active</div><div class="stat-value">{fmtCount(last.reduce((a, p) => a + p.metrics.database.active, 0))}</div></div>
          </div>
          <div class="grid2">
            <Card title="CPU %"><Chart span={rangeParams(range)} frame={chart(['user %', 'system %'], (p) => [p.metrics.cpu.userPercent, p.metrics.cpu.systemPercent], (p) => p.metrics.cpu.userPercent + p.metrics.cpu.systemPercent)} unit="%" testid="sys-cpu" /></Card>
            <Card title="Memory (MB)"><Chart span={rangeParams(range)} frame={chart(['RSS MB', 'heap MB'], (p) => [p.metrics.memory.rss / 1048576, p.metrics.memory.heapUsed / 1048576], (p) => p.metrics.memory.rss / 1048576)} unit=" MB" /></Card>
            <Card title="Database pool"><Chart span={rangeParams(range)} frame={chart(['active', 'idle'], (p) => [p.metrics.database.active, p.metrics.database.idle], (p) => p.metrics.database.active)} /></Card>
            <Card title="Waiting and in-flight"><Chart span={rangeParams(range)} frame={chart(['pool waiting', 'in-flight requests'], (p) => [p.metrics.database.waiting, p.metrics.registries.inflightRequests], (p) => p.metrics.registries.inflightRequests)} /></Card>
            <Card title="Event loop lag (ms)"><Chart span={rangeParams(range)} frame={chart(['lag ms'], (p) => [p.metrics.eventLoop.lagMs], (p) => p.metrics.eventLoop.lagMs)} unit=" ms" /></Card>
            <Card title="Parked pops"><Chart span={rangeParams(range)} frame={chart(['parked'], (p) => [p.metrics.registries.parkedPops], (p) => p.metrics.registries.parkedPops)} /></Card>
          </div>
          {sm !== null && sm.replicas.length > 1 && (
            <Card title="Brokers with samples in this range"><Rows testid="sys-brokers" rows={sm.replicas} head={['Worker', 'Host', 'Port', 'Points', 'State']} cells={(r) => [r.workerId, r.hostname, String(r.port), r.timeSeries.length, r.alive ? 'running' : 'stopped']} empty="" /></Card>
          )}
          <Cluster />
        </>
      )}
    </div>
  );
}
