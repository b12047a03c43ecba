/**
 * Queue detail `/queues/:name` (docs/dashboard.md): counts, "now" rates, metric rows, configuration, the
 * partition browser, and the queue's actions (configure, publish, clear queue or partition, delete). Polls.
 */
import { useState } from 'preact/hooks';
import { broker, http, planned } from '../api.js';
import { invalidateQueues } from '../cache.js';
import { Chart } from '../components/Chart.js';
import { PublishForm } from '../components/PublishForm.js';
import { QueueForm } from '../components/QueueForm.js';
import { Action, Card, Confirm, Empty, ErrorNote, Facts, RangePicker, Sparkline, Stat } from '../components/ui.js';
import { fmtCount, fmtDuration, fmtMs, fmtRate, fmtTime, severity } from '../format.js';
import { THRESHOLDS as T } from '../thresholds.js';
import { POLL_MS, refreshAll, useLoad, useNow } from '../load.js';
import { navigate, useQueryState } from '../router.js';
import { frameFrom, latest, rangeParams, type Frame } from '../series.js';
import type { DlqList, QueueDetail, QueueStatus } from '../types.js';

const PAGE = 50;

/** The detail page of one queue. */
export function QueueDetailView(props: { name: string }) {
  const name = props.name;
  const [query, setQuery] = useQueryState();
  const range = query.get('range') ?? '1h';
  const page = Number(query.get('ppage') ?? '0') || 0;
  const [modal, setModal] = useState<null | 'edit' | 'publish' | 'clear' | 'delete' | { clearPartition: string }>(null);
  const now = useNow();
  const detail = useLoad(async () => {
    const [resource, status, dlq] = await Promise.all([
      // The requester turns a miss (X-Queen-Status 404) into an error: what arrives is the detail.
      broker.getQueue(http(), name) as Promise<QueueDetail>,
      (broker.getQueueStatus(http(), name) as Promise<QueueStatus>).catch(() => null),
      broker.listDlq(http(), { queue: name, limit: 1 }).catch((): DlqList | null => null),
    ]);
    return { resource, status, dlqTotal: dlq?.total ?? 0 };
  }, [name], POLL_MS);
  const series = useLoad(async () => {
    const q = { ...rangeParams(range), queue: name };
    const [ops, lag, parked] = await Promise.all([
      broker.getQueueOps(http(), q),
      broker.getQueueLag(http(), q),
      broker.getParkedReplicas(http(), { queue: name }),
    ]);
    return { ops, lag, parked };
  }, [name, range], POLL_MS);
  const partitions = useLoad(() => broker.listPartitions(http(), { queue: name, limit: PAGE, offset: page * PAGE }), [name, page], POLL_MS);

  if (detail.error !== null && detail.data === undefined) {
    const missing = detail.error === 'Queue not found';
    return <Empty>{missing ? 'Queue not found' : detail.error}. <a href="/queues">Back to queues</a></Empty>;
  }
  const d = detail.data;
  if (d === undefined) return <div class="skeleton" />;
  const r = d.resource;
  const totals = d.status?.totals.messages ?? r.totals;
  const bucketMs = 60_000;
  const s = series.data;
  const tp: Frame = s === undefined ? { x: [], series: [] } : frameFrom(s.ops, bucketMs, ['push/s', 'pop/s', 'ack/s'], (o) => [o.pushMessages / 60, o.popMessages / 60, o.ackMessages / 60]);
  const pushes: Frame = s === undefined ? { x: [], series: [] } : frameFrom(s.ops, bucketMs, ['pushed', 'popped'], (o) => [o.pushMessages, o.popMessages]);
  const lag: Frame = s === undefined ? { x: [], series: [] } : frameFrom(s.lag, bucketMs, ['avg ms', 'max ms'], (o) => [o.avgLagMs, o.maxLagMs]);
  const errors: Frame = s === undefined ? { x: [], series: [] } : frameFrom(s.ops, bucketMs, ['ack failed', 'dlq moved'], (o) => [o.ackFailed, o.dlqMoved]);
  const consumed: Frame = s === undefined ? { x: [], series: [] } : frameFrom(s.ops, bucketMs, ['pops'], (o) => [o.popMessages]);
  // Counts "in the range" include the minute still open (the series leave it out: as a rate it would look like a
  // drop), so 120 messages pushed a moment ago are 120 here, not 0.
  const inRange = (field: 'pushMessages' | 'popMessages' | 'ackFailed' | 'dlqMoved'): number => (s?.ops ?? []).reduce((a, o) => a + o[field], 0);
  const ackFailed = inRange('ackFailed');
  const parked = (s?.parked ?? []).reduce((a, p) => a + p.parked, 0);
  const totalConsumed = (d.status?.partitions ?? []).reduce((a, p) => a + p.cursor.totalConsumed, 0);
  const nowOf = (f: Frame, i: number): string => fmtRate(latest(f.series[i]?.values ?? []));
  const c = r.config;
  const groups = d.status?.consumerGroups ?? [];
  const pendingSev = severity(totals.pending, T.pending.warn, T.pending.bad);
  const pendingTone = pendingSev === 'ok' ? undefined : pendingSev;
  const rows: [string, string, string, Frame, string][] = [
    ['throughput', 'Throughput (push / pop / ack per s)', `${nowOf(tp, 0)} / ${nowOf(tp, 1)} / ${nowOf(tp, 2)}`, tp, ' /s'],
    // Pops count once per consumer group: beside pushes they are a volume, not a direction (the groups card says who is behind).
    ['pushed-popped', `Pushed / popped (${range}, pops once per group)`, `${fmtCount(inRange('pushMessages'))} / ${fmtCount(inRange('popMessages'))}`, pushes, ''],
    ['lag', 'Time lag avg / max', `${fmtMs(latest(lag.series[0]?.values ?? []))} / ${fmtMs(latest(lag.series[1]?.values ?? []))}`, lag, ' ms'],
    ['errors', `Failed acks / moved to DLQ (${range})`, `${fmtCount(ackFailed)} / ${fmtCount(inRange('dlqMoved'))}`, errors, ''],
    ['consumed', 'Consumed (total)', fmtCount(totalConsumed), consumed, ''],
  ];
  const clearCall = (partition?: string) => planned(broker.routes.clearQueue, { queue: name }, { partition });
  const clear = async (partition?: string): Promise<string> => {
    const res = await broker.clearQueue(http('ADMIN'), name, partition);
    return `Cleared ${fmtCount(res.success ? res.deletedMessages : 0)} message(s)`;
  };
  return (
    <div class="stack">
      <div class="toolbar">
        <a class="btn plain" href="/queues">← Queues</a>
        <h1 class="title" data-testid="queue-name">{r.name}</h1>
        <span class="muted" data-testid="queue-facts">{[r.namespace, r.task].filter((v) => v !== null && v !== '').concat(`${fmtCount(r.partitions.length)} partitions`, `priority ${c.priority}`, `created ${fmtTime(r.createdAt)}`).join(' · ')}</span>
        <span class="grow" />
        <RangePicker value={range} options={['1h', '6h', '24h']} onChange={(v) => setQuery({ range: v === '1h' ? null : v })} />
        <span class="muted">live · {detail.at === null ? '–' : `${Math.round((now - detail.at) / 1000)}s ago`}</span>
      </div>
      <div class="toolbar">
        <a class="btn plain" href={`/messages?queue=${encodeURIComponent(name)}`}>Browse messages</a>
        <a class="btn plain" href={`/dlq?queue=${encodeURIComponent(name)}`}>DLQ <span class="badge" data-testid="dlq-badge">{fmtCount(d.dlqTotal)}</span></a>
        <a class="btn plain" href={`/traces?queue=${encodeURIComponent(name)}`}>Traces</a>
        <span class="grow" />
        <Action needs="READ_WRITE" testid="publish" onClick={() => setModal('publish')}>Publish message</Action>
        <Action needs="READ_WRITE" testid="configure" onClick={() => setModal('edit')}>Configure</Action>
        <Action needs="ADMIN" kind="danger" testid="clear-queue" onClick={() => setModal('clear')}>Clear</Action>
        <Action needs="ADMIN" kind="danger" testid="delete-queue" onClick={() => setModal('delete')}>Delete queue</Action>
      </div>
      <ErrorNote error={detail.error ?? series.error} stale />
      {d.dlqTotal > 0 && <a class="banner bad" href={`/dlq?queue=${encodeURIComponent(name)}`}>{fmtCount(d.dlqTotal)} message(s) in the dead-letter queue now</a>}
      {ackFailed > 0 && <div class="banner warn">{fmtCount(ackFailed)} failed ack(s) in the last {range} (retried, not in the DLQ)</div>}
      {pendingTone !== undefined && <div class={`banner ${pendingTone}`}>{fmtCount(totals.pending)} messages pending</div>}
      <div class="strip" data-testid="queue-counts">
        <Stat label="Pending" value={fmtCount(totals.pending)} testid="q-pending" tone={pendingTone} />
        <Stat label="Processing" value={fmtCount(totals.processing)} testid="q-processing" />
        <Stat label={groups.length > 1 ? 'Completed by every group' : 'Completed'} value={fmtCount(totals.completed)} testid="q-completed" />
        <Stat label="Failed" value={fmtCount(totals.failed)} testid="q-failed" />
        <Stat label="DLQ" value={fmtCount(totals.deadLetter)} testid="q-dlq" href={`/dlq?queue=${encodeURIComponent(name)}`} />
        <Stat label="Total" value={fmtCount(totals.total)} testid="q-total" />
        <Stat label="Partitions" value={fmtCount(r.partitions.length)} testid="q-partitions" />
        <Stat label="Now push / pop / ack /s" value={`${nowOf(tp, 0)} / ${nowOf(tp, 1)} / ${nowOf(tp, 2)}`} />
        <Stat label="Parked pops" value={fmtCount(parked)} testid="q-parked" />
      </div>
      <Card title="Metrics">
        <table class="metrics"><tbody>
          {rows.map(([key, label, value, frame]) => (
            <tr key={key} data-testid={`qmetric-${key}`}><td>{label}</td><td class="num"><b data-testid={`qnow-${key}`}>{value}</b></td><td><Sparkline values={frame.series[0]?.values ?? []} /></td></tr>
          ))}
        </tbody></table>
        <Chart frame={tp} span={rangeParams(range)} title="Throughput" unit=" /s" testid="queue-throughput-chart" />
      </Card>
      <Card title={`Consumer groups (${fmtCount(groups.length)})`} testid="queue-groups">
        {groups.length === 0 ? <Empty>No consumer group has read this queue yet</Empty> : (
          <table class="list"><thead><tr><th>Group</th><th class="num">Completed</th><th class="num">Processing</th><th class="num">Pending</th><th class="num">Time lag</th><th class="num">Partitions read</th></tr></thead><tbody>
            {groups.map((g) => {
              const lagTone = severity(g.timeLagSeconds, T.lagSeconds.warn, T.lagSeconds.bad);
              return (
                <tr key={g.name} data-testid="queue-group" data-group={g.name}><td><a href={`/consumers?search=${encodeURIComponent(g.name === '__QUEUE_MODE__' ? name : g.name)}`}>{g.name === '__QUEUE_MODE__' ? 'queue mode' : g.name}</a></td>
                  <td class="num" data-testid="group-completed">{fmtCount(g.completed)}</td><td class="num" data-testid="group-processing">{fmtCount(g.processing)}</td>
                  <td class="num" data-testid="group-pending">{fmtCount(g.pending)}</td><td class={`num ${lagTone === 'ok' ? '' : lagTone}`} data-testid="group-lag">{fmtDuration(g.timeLagSeconds)}</td>
                  <td class="num">{fmtCount(g.partitions)} of {fmtCount(r.partitions.length)}</td></tr>
              );
            })}
          </tbody></table>
        )}
        {groups.length > 1 && <p class="muted note">Each group reads every message: its figures are against its own position. The queue's Pending counts a message until every group has it; Completed is what every group has consumed.</p>}
      </Card>
      <div class="grid2">
        <Card title="Configuration" actions={<Action needs="READ_WRITE" onClick={() => setModal('edit')}>Edit</Action>}>
          <Facts testid="queue-config" rows={[
            ['Lease time', `${c.leaseTime} s`], ['TTL', `${c.ttl} s`], ['Max queue size', c.maxSize === 0 ? '∞' : fmtCount(c.maxSize)],
            ['Retry limit', String(c.retryLimit)], ['Retry delay', `${c.retryDelay} ms`], ['Dead-letter queue', c.deadLetterQueue ? 'enabled' : 'disabled'],
            ['DLQ after max retries', c.dlqAfterMaxRetries ? 'yes' : 'no'], ['Priority', String(c.priority)], ['Delayed processing', `${c.delayedProcessing} s`],
            ['Retention', c.retentionEnabled ? `${fmtDuration(c.retentionSeconds)} (completed ${fmtDuration(c.completedRetentionSeconds)})` : 'off'],
            ['Encryption', c.encryptionEnabled ? 'on' : 'off'], ['Created', fmtTime(r.createdAt)],
          ]} />
        </Card>
        <Card title={`Partitions (${fmtCount(partitions.data?.total ?? r.partitions.length)})`} testid="partition-browser">
          <table class="list"><thead><tr><th>Partition</th><th class="num">Total</th><th class="num">Pending</th><th class="num">Processing</th><th class="num">Groups</th><th>Last activity</th><th /></tr></thead><tbody>
            {(partitions.data?.partitions ?? []).map((p) => (
              <tr key={p.id} data-testid="partition-row"><td><a href={`/messages?queue=${encodeURIComponent(name)}&partition=${encodeURIComponent(p.name)}`}>{p.name}</a></td>
                <td class="num">{fmtCount(p.messages.total)}</td><td class="num">{fmtCount(p.messages.pending)}</td><td class="num">{fmtCount(p.messages.processing)}</td>
                <td class="num">{fmtCount(p.consumerGroups)}</td><td>{fmtTime(p.lastActivity)}</td>
                <td><Action needs="ADMIN" kind="danger" testid="clear-partition" onClick={() => setModal({ clearPartition: p.name })}>Clear</Action></td></tr>
            ))}
          </tbody></table>
          <div class="pager">
            <button type="button" class="btn plain" disabled={page === 0} onClick={() => setQuery({ ppage: page <= 1 ? null : String(page - 1) })}>Prev</button>
            <span class="muted">{page * PAGE + 1}–{page * PAGE + (partitions.data?.partitions.length ?? 0)} of {fmtCount(partitions.data?.total)}</span>
            <button type="button" class="btn plain" disabled={(page + 1) * PAGE >= (partitions.data?.total ?? 0)} onClick={() => setQuery({ ppage: String(page + 1) })}>Next</button>
          </div>
        </Card>
      </div>
      {modal === 'edit' && <QueueForm existing={{ name: r.name, namespace: r.namespace, task: r.task, config: c }} onClose={() => setModal(null)} onDone={() => { setModal(null); refreshAll(); }} />}
      {modal === 'publish' && <PublishForm queue={name} onClose={() => setModal(null)} onDone={refreshAll} />}
      {modal === 'clear' && (
        <Confirm danger title={`Clear ${name}`} confirmLabel="Clear queue" typeToConfirm={name} call={clearCall()} onClose={() => setModal(null)} onDone={() => { invalidateQueues(); refreshAll(); }}
          run={() => clear()}>
          <p>Deletes every message of every partition ({fmtCount(totals.total)} now). The queue and its configuration stay.</p>
        </Confirm>
      )}
      {modal !== null && typeof modal === 'object' && (
        <Confirm danger title={`Clear partition ${modal.clearPartition}`} confirmLabel="Clear partition" typeToConfirm={modal.clearPartition} call={clearCall(modal.clearPartition)} onClose={() => setModal(null)} onDone={refreshAll}
          run={() => clear(modal.clearPartition)}>
          <p>Deletes every message of partition {modal.clearPartition} of {name}.</p>
        </Confirm>
      )}
      {modal === 'delete' && (
        <Confirm danger title={`Delete queue ${name}`} confirmLabel="Delete queue" typeToConfirm={name} call={planned(broker.routes.deleteQueue, { queue: name })} onClose={() => setModal(null)}
          onDone={() => { invalidateQueues(); navigate('/queues'); }}
          run={async () => { await broker.deleteQueue(http('ADMIN'), name); return `Queue ${name} deleted`; }}>
          <p>Deletes {fmtCount(r.partitions.length)} partition(s) and {fmtCount(totals.total)} message(s).</p>
        </Confirm>
      )}
    </div>
  );
}

