/**
 * One answer for several worker processes (QUEEN_WORKERS, boot/workers.ts): what each worker reports when its
 * primary asks (a snapshot), and how the snapshots merge into the `/metrics` and `/metrics/prometheus`
 * answers. Counters and process gauges are summed; the gauges read from the database (pending messages, lag,
 * DLQ depth, leases) are the same in every worker and are taken once (their `aggregator` in prometheus.ts).
 * The Prometheus merge is prom-client's own `AggregatorRegistry.aggregate`, made for node:cluster.
 */
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';
import type { MetricsSummary } from './index.js';

/** What one worker reports: its health and readiness answers' status, its `/metrics` body and Prometheus families. */
export interface WorkerSnapshot {
  index: number;
  pid: number;
  health: { status: number };
  ready: { status: number; reason: string | null };
  summary: MetricsSummary;
  prometheus: MetricObjectWithValues<MetricValue<string>>[];
}

/** A worker slot as the primary sees it: serving, starting (its first start or a replacement's), or gone while being replaced. */
export interface WorkerSlot {
  index: number;
  /** The current process of the slot, null between a death and the replacement's fork. */
  pid: number | null;
  state: 'starting' | 'serving' | 'restarting';
}

/** Every slot, and the snapshots of the workers that answered. */
export interface Collected {
  slots: WorkerSlot[];
  snapshots: WorkerSnapshot[];
}

/** How a worker reaches the others (through its primary): null in a single process. */
export interface WorkerPeers {
  /** This worker's slot. */
  readonly index: number;
  /** Asks every live worker (this one included) for its snapshot; only this one's when the primary does not answer. */
  collect(): Promise<Collected>;
}

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

/** Sums each numeric field of the objects (memory and CPU usage). */
function sumFields<T extends object>(items: T[]): T {
  const out: Record<string, number> = {};
  for (const item of items) for (const [key, value] of Object.entries(item)) if (typeof value === 'number') out[key] = (out[key] ?? 0) + value;
  return out as T;
}

/** The `/metrics` body of all workers: totals, rates, pools, memory and CPU summed; uptime the longest. */
export function mergeSummaries(summaries: MetricsSummary[]): MetricsSummary {
  const round3 = (value: number): number => Math.round(value * 1000) / 1000;
  return {
    uptime: Math.max(0, ...summaries.map((s) => s.uptime)),
    requests: { total: sum(summaries.map((s) => s.requests.total)), rate: round3(sum(summaries.map((s) => s.requests.rate))) },
    messages: { total: sum(summaries.map((s) => s.messages.total)), rate: round3(sum(summaries.map((s) => s.messages.rate))) },
    database: {
      poolSize: sum(summaries.map((s) => s.database.poolSize)),
      idleConnections: sum(summaries.map((s) => s.database.idleConnections)),
      waitingRequests: sum(summaries.map((s) => s.database.waitingRequests)),
    },
    memory: sumFields(summaries.map((s) => s.memory)),
    cpu: sumFields(summaries.map((s) => s.cpu)),
  };
}

/** The Prometheus registry of all workers' families, each merged by its aggregator (sum unless said otherwise). */
export function mergePrometheus(snapshots: WorkerSnapshot[]): Registry {
  return AggregatorRegistry.aggregate(snapshots.map((s) => s.prometheus));
}
