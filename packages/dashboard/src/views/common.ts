/** Helpers shared by several views: time-series frames from the analytics routes. */
import { broker, filters, http } from '../api.js';
import { frameFrom, type Frame } from '../series.js';
import type { QueueOpsRow, Retention, Status, SystemMetrics, SystemPoint, WorkerMetrics } from '../types.js';

/** Seconds per bucket of a response. */
export const bucketSeconds = (bucketMinutes: number | undefined): number => Math.max(1, (bucketMinutes ?? 1) * 60);

/** Push/pop/ack messages per second from worker-metrics. */
export function throughputFrame(w: WorkerMetrics): Frame {
  const s = bucketSeconds(w.bucketMinutes);
  return frameFrom(w.timeSeries, s * 1000, ['push/s', 'pop/s', 'ack/s'], (p) => [p.pushMessages / s, p.popMessages / s, p.ackMessages / s]);
}

/** Avg/max lag (ms) from status throughput; a bucket without processed messages is a gap. */
export function lagFrame(st: Status): Frame {
  const s = bucketSeconds(st.bucketMinutes);
  return frameFrom(st.throughput, s * 1000, ['avg lag ms', 'max lag ms'], (p) => (p.processed > 0 ? [p.avgLagMs, p.maxLagMs] : [null, null]));
}

/** The installation's pending messages per bucket (the broker's once-a-minute samples; missing minutes are gaps). */
export function pendingFrame(st: Status): Frame {
  return frameFrom(st.pendingHistory, bucketSeconds(st.bucketMinutes) * 1000, ['pending'], (p) => [p.pending]);
}

/**
 * How pending changed over the range: the latest sample minus the first one (with when that was), or null before
 * there are two samples. Never from counters: an ack counts once per consumer group, a message stays pending
 * until every group has it.
 */
export function netFlow(st: Status): { change: number; from: number; at: string } | null {
  const samples = st.pendingHistory;
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (first === undefined || last === undefined || samples.length < 2) return null;
  return { change: last.pending - first.pending, from: first.pending, at: first.timestamp };
}

/** Only the brokers running now: "now" figures and counts never include a stopped process's last samples. */
export function runningOnly(sm: SystemMetrics): SystemMetrics {
  const replicas = sm.replicas.filter((r) => r.alive);
  return { ...sm, replicas, replicaCount: replicas.length, aliveCount: replicas.length };
}

/** "2 running", or "1 running · 1 stopped" when stopped brokers left samples in the window. */
export function brokerCountText(sm: SystemMetrics): string {
  const stopped = sm.replicaCount - sm.aliveCount;
  return `${sm.aliveCount} running${stopped > 0 ? ` · ${stopped} stopped` : ''}`;
}

/** One value of every replica's samples, aggregated per bucket across replicas by `how`. */
export function systemFrame(sm: SystemMetrics, labels: string[], pick: (p: SystemPoint) => number[], how: 'sum' | 'avg' | 'max' = 'sum'): Frame {
  const rows = sm.replicas.flatMap((r) => r.timeSeries.map((p) => ({ timestamp: p.timestamp, values: pick(p) })));
  const bucketMs = bucketSeconds(sm.bucketMinutes) * 1000;
  if (how === 'sum') return frameFrom(rows, bucketMs, labels, (r) => r.values);
  const groups = new Map<string, number[][]>();
  for (const r of rows) groups.set(r.timestamp, [...(groups.get(r.timestamp) ?? []), r.values]);
  const merged = [...groups.entries()].map(([timestamp, list]) => ({
    timestamp,
    values: labels.map((_, i) => {
      const column = list.map((v) => v[i] ?? 0);
      return how === 'max' ? Math.max(...column) : column.reduce((a, b) => a + b, 0) / column.length;
    }),
  }));
  return frameFrom(merged, bucketMs, labels, (r) => r.values);
}

/** One line per replica of a single metric. */
export function perReplicaFrame(sm: SystemMetrics, pick: (p: SystemPoint) => number): Frame {
  const bucketMs = bucketSeconds(sm.bucketMinutes) * 1000;
  const labels = sm.replicas.map((r) => r.workerId);
  const rows = sm.replicas.flatMap((r, i) => r.timeSeries.map((p) => ({ timestamp: p.timestamp, i, v: pick(p) })));
  return frameFrom(rows, bucketMs, labels, (r) => labels.map((_, j) => (j === r.i ? r.v : null)));
}

/** Per-bucket sums of queue-ops fields over every queue (or one). */
export function queueOpsFrame(rows: QueueOpsRow[], bucketMs: number, fields: (keyof QueueOpsRow)[], labels: string[], perSecond = false): Frame {
  const s = bucketMs / 1000;
  return frameFrom(rows, bucketMs, labels, (r) => fields.map((f) => Number(r[f]) / (perSecond ? s : 1)));
}

/** Deleted messages per bucket and kind from the retention history (bucketed to `bucketMs`). */
export function retentionFrame(r: Retention, bucketMs: number): Frame {
  const kinds = ['retention', 'completed', 'eviction', 'partition_cleanup'];
  const rows = r.history.map((h) => ({ timestamp: new Date(Math.floor(new Date(h.timestamp).getTime() / bucketMs) * bucketMs).toISOString(), kind: h.kind, deleted: h.deleted }));
  return frameFrom(rows, bucketMs, kinds, (row) => kinds.map((k) => (k === row.kind ? row.deleted : 0)), Number.MAX_SAFE_INTEGER);
}

/** The whole retention history of a window (pages through `total`, 1000 rows a page, at most 10 pages). */
export async function retentionAll(from: string, to: string, queue?: string): Promise<Retention> {
  const out: Retention = { history: [], total: 0, pagination: { limit: 1000, offset: 0 } };
  for (let offset = 0; offset < 10_000; offset += 1000) {
    const page = await broker.getRetentionHistory(http(), { from, to, ...filters({ queue }), limit: 1000, offset });
    out.history.push(...page.history);
    out.total = page.total;
    if (out.history.length >= page.total || page.history.length === 0) break;
  }
  return out;
}
