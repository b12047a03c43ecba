/**
 * The Prometheus families of `GET /metrics/prometheus` (docs/api.md 7.11), on a registry of their own (never
 * prom-client's global one, so several brokers in one process, as in tests, do not collide).
 *
 * Counters are incremented by the recorder as requests complete. Gauges are computed when scraped, by
 * collect() callbacks: process-local ones (parked pops, pool) read memory; database-derived ones (pending
 * messages, lag, DLQ depth, live leases) share one cached snapshot of `queen.metrics_gauges()`. Every
 * collect() resets its gauge first, so a deleted queue's series disappears instead of going stale, and when
 * the database cannot be read the database-derived series are absent rather than wrong. Per-queue series are
 * bounded: past METRICS_MAX_QUEUES queue names, the others share `queue="__other__"`. With several workers
 * (metrics/workers.ts) the families are merged by their `aggregator`: summed, except the database-derived
 * gauges (the same in every worker: taken once) and the flags and states (the highest: 1 when any worker's is).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DatabaseGauges } from '../store/status.js';

/** Where the scrape-time gauges read their values. */
export interface GaugeSources {
  /** Database-derived gauges (cached for a few seconds), or null when the database could not be read. */
  database(): Promise<DatabaseGauges | null>;
  /** Parked pops by queue name (`*discovery*` for discovery pops). */
  parkedByQueue(): Map<string, number>;
  /** The connection pool: open connections, idle ones, requests waiting for one. */
  pool(): { total: number; idle: number; waiting: number };
  /** Messages in the failover/maintenance buffer (docs/api.md 9.5). */
  bufferedMessages(): number;
  /** What the failover buffer is doing: one of BUFFER_STATES. */
  bufferState(): string;
  /** Bytes the buffer's files take, and their limit (FILE_BUFFER_MAX_BYTES). */
  bufferBytes(): { bytes: number; maxBytes: number };
  /** The maintenance flags (docs/api.md 9.4). */
  maintenance(): { push: boolean; pop: boolean };
}

/** The states of `queen_file_buffer_state` (1 for the current one, 0 for the others). */
const BUFFER_STATES = ['idle', 'buffering', 'replaying', 'failed'];
/** The label value shared by the queues past METRICS_MAX_QUEUES. */
export const OTHER_QUEUES = '__other__';

/** Upper bounds (seconds) of the request-duration histogram: long polls run up to minutes. */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 600];

/** The queen_* families plus the default process and Node.js families, on one registry. */
export class PrometheusFamilies {
  /** The registry `GET /metrics/prometheus` renders. */
  readonly registry = new Registry();
  /** Messages written by pushes, by queue. */
  readonly pushed: Counter<'queue'>;
  /** Messages delivered by pops, by queue. */
  readonly popped: Counter<'queue'>;
  /** Ack items by queue and status (`completed`, `failed`, `retry`, `dlq`, or `rejected` when refused). */
  readonly acked: Counter<'queue' | 'status'>;
  /** Messages moved to the DLQ by acks, by queue. */
  readonly deadLettered: Counter<'queue'>;
  /** Answered HTTP requests. */
  readonly httpRequests: Counter<'route' | 'method' | 'status'>;
  /** HTTP request durations, arrival to response (long polls included). */
  readonly httpDuration: Histogram<'route'>;
  /** Database failures by kind (`connection`, `timeout`, `query`). */
  readonly dbErrors: Counter<'kind'>;
  /** Pops that delivered nothing, by X-Queen-Empty-Reason. */
  readonly popEmpty: Counter<'reason'>;

  /** Queue names with a series of their own (at most `maxQueues`, the first ones seen by this process). */
  private readonly namedQueues = new Set<string>();

  /**
   * `maxQueues` (METRICS_MAX_QUEUES) bounds the per-queue series: the first queues this process sees keep
   * their name, every later one is counted under `queue="__other__"` (summed; the lag gauge keeps the oldest).
   */
  constructor(sources: GaugeSources, private readonly maxQueues = 1000) {
    const registers = [this.registry];
    const label = (queue: string): string => this.queueLabel(queue);
    collectDefaultMetrics({ register: this.registry });
    const counter = <L extends string>(name: string, help: string, labelNames: L[]): Counter<L> =>
      new Counter({ name, help, labelNames, registers });
    this.pushed = counter('queen_messages_pushed_total', 'Messages written by pushes', ['queue']);
    this.popped = counter('queen_messages_popped_total', 'Messages delivered by pops', ['queue']);
    this.acked = counter('queen_messages_acked_total', 'Ack items by status (rejected: the ack was refused)', ['queue', 'status']);
    this.deadLettered = counter('queen_messages_dlq_total', 'Messages moved to the dead-letter queue by acks', ['queue']);
    this.httpRequests = counter('queen_http_requests_total', 'Answered HTTP requests', ['route', 'method', 'status']);
    this.dbErrors = counter('queen_db_errors_total', 'Database failures', ['kind']);
    this.popEmpty = counter('queen_pop_empty_total', 'Pops that delivered nothing, by reason', ['reason']);
    this.httpDuration = new Histogram({
      name: 'queen_http_request_duration_seconds', help: 'HTTP request duration, long polls included', labelNames: ['route'],
      buckets: DURATION_BUCKETS, registers,
    });

    new Gauge({
      name: 'queen_queue_pending_messages', aggregator: 'first', help: 'Retained messages above the reference cursor (pending + processing)',
      labelNames: ['queue'], registers,
      async collect() {
        this.reset();
        for (const q of (await sources.database())?.queues ?? []) this.inc({ queue: label(q.queue) }, q.pending);
      },
    });
    new Gauge({
      name: 'queen_queue_lag_seconds', aggregator: 'first', help: 'Age of the oldest unconsumed message, per consumer group',
      labelNames: ['queue', 'consumer_group'], registers,
      async collect() {
        this.reset();
        const oldest = new Map<string, { queue: string; group: string; seconds: number }>();
        for (const l of (await sources.database())?.lags ?? []) {
          const queue = label(l.queue);
          const key = `${queue}\u0000${l.group}`;
          const known = oldest.get(key);
          if (known === undefined || l.seconds > known.seconds) oldest.set(key, { queue, group: l.group, seconds: l.seconds });
        }
        for (const l of oldest.values()) this.set({ queue: l.queue, consumer_group: l.group }, l.seconds);
      },
    });
    new Gauge({
      name: 'queen_dlq_depth', aggregator: 'first', help: 'Dead-letter entries', labelNames: ['queue'], registers,
      async collect() {
        this.reset();
        for (const q of (await sources.database())?.queues ?? []) this.inc({ queue: label(q.queue) }, q.dlqDepth);
      },
    });
    new Gauge({
      name: 'queen_leases_active', aggregator: 'first', help: 'Live leases in the cluster', registers,
      async collect() {
        this.reset();
        const gauges = await sources.database();
        if (gauges !== null) this.set(gauges.leasesActive);
      },
    });
    new Gauge({
      name: 'queen_long_polls_parked', help: 'Pops parked in this process (*discovery* for discovery pops)',
      labelNames: ['queue'], registers,
      collect() {
        this.reset();
        for (const [queue, parked] of sources.parkedByQueue()) this.inc({ queue: label(queue) }, parked);
      },
    });
    new Gauge({
      name: 'queen_db_pool_connections', help: 'Connections of this process\'s pool', labelNames: ['state'], registers,
      collect() {
        const pool = sources.pool();
        this.set({ state: 'total' }, pool.total);
        this.set({ state: 'idle' }, pool.idle);
        this.set({ state: 'active' }, pool.total - pool.idle);
      },
    });
    new Gauge({
      name: 'queen_db_pool_waiting', help: 'Requests waiting for a pool connection', registers,
      collect() {
        this.set(sources.pool().waiting);
      },
    });
    new Gauge({
      name: 'queen_file_buffer_pending_messages', help: 'Messages in the failover buffer, not yet replayed', registers,
      collect() {
        this.set(sources.bufferedMessages());
      },
    });
    new Gauge({
      name: 'queen_file_buffer_bytes', help: 'Bytes the failover buffer files take on disk', registers,
      collect() {
        this.set(sources.bufferBytes().bytes);
      },
    });
    new Gauge({
      name: 'queen_file_buffer_max_bytes', aggregator: 'max', help: 'The limit of queen_file_buffer_bytes (FILE_BUFFER_MAX_BYTES, or 90 % of the free space at start-up); past it pushes that must be buffered are refused (unavailable, retry later)', registers,
      collect() {
        this.set(sources.bufferBytes().maxBytes);
      },
    });
    new Gauge({
      name: 'queen_file_buffer_state', aggregator: 'max', help: 'What the failover buffer does (1 = the current state): buffering while the database is unreachable or push maintenance is on, replaying while buffered messages are written back',
      labelNames: ['state'], registers,
      collect() {
        const current = sources.bufferState();
        for (const state of BUFFER_STATES) this.set({ state }, state === current ? 1 : 0);
      },
    });
    new Gauge({
      name: 'queen_maintenance_mode', aggregator: 'max', help: 'Maintenance flags (1 = on)', labelNames: ['kind'], registers,
      collect() {
        const flags = sources.maintenance();
        this.set({ kind: 'push' }, flags.push ? 1 : 0);
        this.set({ kind: 'pop' }, flags.pop ? 1 : 0);
      },
    });
  }

  /** The `queue` label of a queue: its name while fewer than `maxQueues` names are in use, else `__other__`. */
  queueLabel(queue: string): string {
    if (this.namedQueues.has(queue)) return queue;
    if (this.namedQueues.size >= this.maxQueues) return OTHER_QUEUES;
    this.namedQueues.add(queue);
    return queue;
  }
}
