/**
 * The broker itself: health, readiness, metrics (docs/api.md §4.1, §7.11), maintenance modes and shared state (§7.9) and the
 * stats refresh (§7.8). `/health` keeps upstream's snake_case keys.
 */
import { route, send, type ApiRequester, type CallOptions } from './route.js';

/** Routes of this family. */
export const systemRoutes = {
  health: route('health', 'GET', '/health', 'PUBLIC'),
  ready: route('ready', 'GET', '/ready', 'PUBLIC'),
  openApiDocument: route('openApiDocument', 'GET', '/openapi.json', 'PUBLIC'),
  metrics: route('metrics', 'GET', '/metrics', 'PUBLIC'),
  prometheusMetrics: route('prometheusMetrics', 'GET', '/metrics/prometheus', 'PUBLIC'),
  getMaintenance: route('getMaintenance', 'GET', '/api/v1/system/maintenance', 'ADMIN'),
  setMaintenance: route('setMaintenance', 'POST', '/api/v1/system/maintenance', 'ADMIN'),
  getPopMaintenance: route('getPopMaintenance', 'GET', '/api/v1/system/maintenance/pop', 'ADMIN'),
  setPopMaintenance: route('setPopMaintenance', 'POST', '/api/v1/system/maintenance/pop', 'ADMIN'),
  getSharedState: route('getSharedState', 'GET', '/api/v1/system/shared-state', 'ADMIN'),
  refreshStats: route('refreshStats', 'POST', '/api/v1/stats/refresh', 'ADMIN'),
} as const;

/** The `/health` body (the same on 200 and 503; the transport rejects a 503 with it as `error.body`). */
export interface HealthResponse {
  status: 'healthy' | 'unhealthy';
  database: 'connected' | 'disconnected';
  database_server?: unknown;
  server: string;
  worker_id: number;
  version: string;
  shared_state: {
    enabled: boolean;
    running: boolean;
    server_id: string;
    transport: string;
    queue_config_cache: { size: number; hits: number; misses: number; hit_rate: number };
    server_health: { servers_tracked: number; servers_alive: number; servers_dead: number; heartbeats_received: number; restarts_detected: number };
    maintenance_mode: boolean;
    pop_maintenance_mode: boolean;
  };
  queen: { worker_id: number; status: 'active' | 'draining' };
  buffer?: { state: string; buffered_messages: number; detail: string };
}

/** Whether the broker and its database are up. */
export const health = (http: ApiRequester, options?: CallOptions): Promise<HealthResponse> => send(http, systemRoutes.health, {}, {}, options);

/** The `/ready` body (docs/api.md §4.1a; the same on 200 and 503). */
export interface ReadinessResponse {
  ready: boolean;
  reason: null | 'draining' | 'buffer full' | 'buffer write failed' | 'starting';
  writes?: 'database' | 'buffer';
  buffer?: { state: string; buffered_messages: number; detail: string; bytes?: number; max_bytes?: number };
}

/** Whether this broker takes writes now (committed or buffered): what a load balancer follows. */
export const ready = (http: ApiRequester, options?: CallOptions): Promise<ReadinessResponse> => send(http, systemRoutes.ready, {}, {}, options);

/** The OpenAPI 3.1 description of the HTTP API the broker serves (the document is its own schema). */
export const openApiDocument = (http: ApiRequester, options?: CallOptions): Promise<Record<string, unknown>> => send(http, systemRoutes.openApiDocument, {}, {}, options);

/** The JSON metrics of docs/api.md §7.11. */
export interface MetricsResponse {
  uptime: number;
  requests: { total: number; rate: number };
  messages: { total: number; rate: number };
  database: { poolSize: number; idleConnections: number; waitingRequests: number };
  memory: { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number };
  cpu: { user: number; system: number };
}

/** Request, message, pool, memory and CPU figures of this broker process. */
export const metrics = (http: ApiRequester, options?: CallOptions): Promise<MetricsResponse> => send(http, systemRoutes.metrics, {}, {}, options);

/** The Prometheus exposition text. */
export const prometheusMetrics = async (http: ApiRequester, options?: CallOptions): Promise<string> => String(await send<unknown, string>(http, systemRoutes.prometheusMetrics, {}, {}, options));

/** The maintenance state with the failover buffer's figures. */
export interface MaintenanceStatus {
  maintenanceMode: boolean;
  popMaintenanceMode: boolean;
  bufferedMessages: number;
  bufferHealthy: boolean;
  bufferStats: {
    pendingCount: number;
    failedCount: number;
    dbHealthy: boolean;
    failedFiles: { count: number; totalBytes: number; totalMB: number; failoverCount: number; qos0Count: number };
  };
}

/** Push and pop maintenance and the buffer. */
export const getMaintenance = (http: ApiRequester, options?: CallOptions): Promise<MaintenanceStatus> => send(http, systemRoutes.getMaintenance, {}, {}, options);

/** Push maintenance after a change. */
export interface SetMaintenanceResponse {
  maintenanceMode: boolean;
  bufferedMessages: number;
  bufferHealthy: boolean;
  message: string;
}

/** Turns push maintenance on or off. */
export const setMaintenance = (http: ApiRequester, enabled: boolean, options?: CallOptions): Promise<SetMaintenanceResponse> => send(http, systemRoutes.setMaintenance, {}, { body: { enabled } }, options);

/** Pop maintenance. */
export interface PopMaintenanceResponse {
  popMaintenanceMode: boolean;
  message: string;
}

/** Whether pop maintenance is on. */
export const getPopMaintenance = (http: ApiRequester, options?: CallOptions): Promise<PopMaintenanceResponse> => send(http, systemRoutes.getPopMaintenance, {}, {}, options);

/** Turns pop maintenance on or off. */
export const setPopMaintenance = (http: ApiRequester, enabled: boolean, options?: CallOptions): Promise<PopMaintenanceResponse> => send(http, systemRoutes.setPopMaintenance, {}, { body: { enabled } }, options);

/** One broker process of the cluster. */
export interface BrokerProcess {
  serverId: string;
  hostname: string;
  pid: number;
  startedAt: string;
  lastHeartbeatAt: string;
  parkedPops: number;
}

/** The broker processes sharing the database. */
export interface SharedState {
  serverId: string;
  processes: BrokerProcess[];
  maintenanceMode: boolean;
  popMaintenanceMode: boolean;
}

/** This process's id and every live process. */
export const getSharedState = (http: ApiRequester, options?: CallOptions): Promise<SharedState> => send(http, systemRoutes.getSharedState, {}, {}, options);

/** The outcome of one stats step. */
export interface StatsStep {
  ok: boolean;
  durationMs: number;
}

/** A stats refresh: every step's outcome, or skipped because another process holds the lock. */
export type RefreshStatsResponse =
  | { partition: StatsStep; queue: StatsStep; namespace: StatsStep; task: StatsStep; system: StatsStep; cleanup: StatsStep }
  | { skipped: true; reason: 'another_instance_running' };

/** Recomputes the stats snapshot now. */
export const refreshStats = (http: ApiRequester, options?: CallOptions): Promise<RefreshStatsResponse> => send(http, systemRoutes.refreshStats, {}, { body: {} }, options);
