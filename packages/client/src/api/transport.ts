/**
 * Building the SDK's transport from the options of `new Queen(...)` (docs/client.md), for the client itself and
 * for tools that call the API layer without a whole client (the dashboard, the streaming SDK, the CLI's login
 * check): one place resolves URLs and defaults, so every caller gets the same retry and failover policy.
 */
import { CLIENT_DEFAULTS } from '../defaults.js';
import { Transport, type TransportOptions } from '../http.js';
import { resolveLogger } from '../log.js';
import type { QueenOptions } from '../types.js';

/** Options of {@link createTransport}: those of `new Queen(...)` plus HTTP statuses the caller also retries. */
export type CreateTransportOptions = QueenOptions & Pick<TransportOptions, 'retryStatuses'>;

/** The URL list of a client config: each http(s), without a trailing slash. */
export function normaliseUrls(config: string | string[] | QueenOptions): { urls: string[]; options: QueenOptions } {
  const options: QueenOptions = typeof config === 'string' ? { url: config } : Array.isArray(config) ? { urls: config } : { ...config };
  const list = options.urls ?? (options.url !== undefined ? [options.url] : []);
  if (list.length === 0) throw new TypeError('Queen: url or urls is required');
  const urls = list.map((url) => {
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new TypeError(`Queen: invalid URL ${JSON.stringify(url)}: must start with http:// or https://`);
    return url.endsWith('/') ? url.slice(0, -1) : url;
  });
  return { urls, options };
}

/** The transport a `new Queen(config)` would use: URLs, defaults, bearer token, headers, fetch and logger. */
export function createTransport(config: string | string[] | CreateTransportOptions): Transport {
  const { urls, options } = normaliseUrls(config);
  const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
  if (typeof fetchImpl !== 'function') throw new TypeError('Queen: no fetch implementation available');
  const retryStatuses = typeof config === 'object' && !Array.isArray(config) ? config.retryStatuses : undefined;
  return new Transport({
    urls,
    timeoutMillis: options.timeoutMillis ?? CLIENT_DEFAULTS.timeoutMillis,
    retryAttempts: options.retryAttempts ?? CLIENT_DEFAULTS.retryAttempts,
    retryDelayMillis: options.retryDelayMillis ?? CLIENT_DEFAULTS.retryDelayMillis,
    loadBalancingStrategy: options.loadBalancingStrategy ?? CLIENT_DEFAULTS.loadBalancingStrategy,
    affinityHashRing: options.affinityHashRing ?? CLIENT_DEFAULTS.affinityHashRing,
    enableFailover: options.enableFailover ?? CLIENT_DEFAULTS.enableFailover,
    healthRetryAfterMillis: options.healthRetryAfterMillis ?? CLIENT_DEFAULTS.healthRetryAfterMillis,
    bearerToken: options.bearerToken ?? null,
    headers: { ...options.headers },
    fetch: fetchImpl,
    logger: resolveLogger(options.logger),
    ...(retryStatuses === undefined ? {} : { retryStatuses }),
    ...(options.telemetry ? { traceHeaders: options.telemetry.headers.bind(options.telemetry) } : {}),
  });
}
