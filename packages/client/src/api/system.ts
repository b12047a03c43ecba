/**
 * The broker itself: health, readiness, metrics (docs/api.md §4.1, §7.11), maintenance modes and shared state (§7.9) and the
 * stats refresh (§7.8). `/health` keeps upstream's snake_case keys.
 */
import { route, send, type ApiRequester, type CallOptions, type Reply, type Wire } from './route.js';

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
export type HealthResponse = Wire<'Health'>;

/** Whether the broker and its database are up. */
export const health = (http: ApiRequester, options?: CallOptions): Promise<HealthResponse> => send(http, systemRoutes.health, {}, {}, options);

/** The `/ready` body (docs/api.md §4.1a; the same on 200 and 503). */
export type ReadinessResponse = Wire<'Readiness'>;

/** Whether this broker takes writes now (committed or buffered): what a load balancer follows. */
export const ready = (http: ApiRequester, options?: CallOptions): Promise<ReadinessResponse> => send(http, systemRoutes.ready, {}, {}, options);

/** The OpenAPI 3.1 description of the HTTP API the broker serves (the document is its own schema). */
export const openApiDocument = (http: ApiRequester, options?: CallOptions): Promise<Record<string, unknown>> => send(http, systemRoutes.openApiDocument, {}, {}, options);

/** The JSON metrics of docs/api.md §7.11. */
export type MetricsResponse = Reply<'metrics'>;

/** Request, message, pool, memory and CPU figures of this broker process. */
export const metrics = (http: ApiRequester, options?: CallOptions): Promise<MetricsResponse> => send(http, systemRoutes.metrics, {}, {}, options);

/** The Prometheus exposition text. */
export const prometheusMetrics = async (http: ApiRequester, options?: CallOptions): Promise<string> => String(await send<unknown, string>(http, systemRoutes.prometheusMetrics, {}, {}, options));

/** The maintenance state with the failover buffer's figures. */
export type MaintenanceStatus = Reply<'getMaintenance'>;

/** Push and pop maintenance and the buffer. */
export const getMaintenance = (http: ApiRequester, options?: CallOptions): Promise<MaintenanceStatus> => send(http, systemRoutes.getMaintenance, {}, {}, options);

/** Push maintenance after a change. */
export type SetMaintenanceResponse = Reply<'setMaintenance'>;

/** Turns push maintenance on or off. */
export const setMaintenance = (http: ApiRequester, enabled: boolean, options?: CallOptions): Promise<SetMaintenanceResponse> => send(http, systemRoutes.setMaintenance, {}, { body: { enabled } }, options);

/** Pop maintenance. */
export type PopMaintenanceResponse = Reply<'getPopMaintenance'>;

/** Whether pop maintenance is on. */
export const getPopMaintenance = (http: ApiRequester, options?: CallOptions): Promise<PopMaintenanceResponse> => send(http, systemRoutes.getPopMaintenance, {}, {}, options);

/** Turns pop maintenance on or off. */
export const setPopMaintenance = (http: ApiRequester, enabled: boolean, options?: CallOptions): Promise<Reply<'setPopMaintenance'>> => send(http, systemRoutes.setPopMaintenance, {}, { body: { enabled } }, options);

/** The broker processes sharing the database. */
export type SharedState = Wire<'SharedState'>;

/** One broker process of the cluster. */
export type BrokerProcess = SharedState['processes'][number];

/** This process's id and every live process. */
export const getSharedState = (http: ApiRequester, options?: CallOptions): Promise<SharedState> => send(http, systemRoutes.getSharedState, {}, {}, options);

/** A stats refresh: every step's outcome, or skipped because another process holds the lock. */
export type RefreshStatsResponse = Reply<'refreshStats'>;

/** Recomputes the stats snapshot now. */
export const refreshStats = (http: ApiRequester, options?: CallOptions): Promise<RefreshStatsResponse> => send(http, systemRoutes.refreshStats, {}, { body: {} }, options);
