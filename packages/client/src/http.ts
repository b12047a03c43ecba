/**
 * The transport: one `request()` that picks URLs (balancer), runs attempts with their own timeout, parses
 * answers, classifies failures into {@link QueenError} codes and applies the retry policy. Everything else in
 * the SDK speaks to the broker only through here, so the policy of docs/client.md lives in one place.
 *
 * One URL (or failover off): up to `retryAttempts` attempts with exponential back-off. Several URLs with
 * failover: each URL at most once, in the balancer's order; failures mark the URL unhealthy.
 * `replay: 'connect-only'` (transactions) retries or fails over only when no connection was ever opened.
 */
import { LoadBalancer } from './balancer.js';
import { QueenError } from './errors.js';
import type { SafeLogger } from './log.js';
import { backoffMillis, isRetriable, neverConnected, parseRetryAfter, sleep } from './retry.js';
import type { TraceCarrier } from './telemetry.js';
import type { LoadBalancingStrategy } from './types.js';

/** Resolved transport settings. */
export interface TransportOptions {
  urls: string[];
  timeoutMillis: number;
  retryAttempts: number;
  retryDelayMillis: number;
  loadBalancingStrategy: LoadBalancingStrategy;
  affinityHashRing: number;
  enableFailover: boolean;
  healthRetryAfterMillis: number;
  bearerToken: string | null;
  headers: Record<string, string>;
  fetch: typeof fetch;
  logger: SafeLogger;
  /** HTTP statuses retried besides 5xx and 429 (the streaming SDK's policy also retries 408). */
  retryStatuses?: readonly number[];
  /** The active trace context as W3C headers, sent with every request (set only with `telemetry`). */
  traceHeaders?: () => TraceCarrier | null;
}

/** One request. `path` is relative to the broker root and may carry a query string. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  /** Affinity key for the load balancer. */
  affinityKey?: string;
  /** Per-attempt timeout; defaults to the client's `timeoutMillis`. */
  timeoutMillis?: number;
  /** Caller's abort signal: aborts the request with ABORTED, never retried. */
  signal?: AbortSignal;
  /** `connect-only`: replay only when no connection was opened (transactions). */
  replay?: 'always' | 'connect-only';
  /** A long-poll pop: its timeout is not a failure, so it is neither retried nor marks the URL unhealthy. */
  longPoll?: boolean;
}

/** A successful (2xx) answer. */
export interface HttpResponse {
  status: number;
  headers: Headers;
  body: unknown;
  url: string;
}

interface FailureInfo {
  retryAfterMillis?: number;
  neverConnected?: boolean;
}

/** Builds `?a=1&b=2` from the defined entries (Dates as ISO); empty string when none. */
export function queryString(params: Record<string, unknown> | undefined): string {
  if (!params) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    search.append(key, value instanceof Date ? value.toISOString() : String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * Percent-encodes one path segment. A name `.` or `..` cannot be sent in a path at all (URL parsers resolve
 * it, also as `%2E%2E`): `assertNoDotSegment` refuses such a request before it is sent.
 */
export const seg = (name: string): string => encodeURIComponent(name);

/** A path segment that URL parsers resolve (`.`, `..`, also percent-encoded): the request would reach another resource. */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=[/?#]|$)/i;

/** Throws VALIDATION when `path` holds a `.` or `..` segment (a queue, partition or group named so). */
export function assertNoDotSegment(path: string): void {
  const bare = path.split('?')[0]!;
  if (DOT_SEGMENT.test(bare)) throw new QueenError('VALIDATION', `A name "." or ".." cannot be used in a request path (it would address another resource): ${bare}`);
}

/** Sends requests to the brokers with the retry, failover and timeout policy of docs/client.md. */
export class Transport {
  readonly balancer: LoadBalancer;
  private readonly failures = new WeakMap<QueenError, FailureInfo>();

  constructor(private readonly options: TransportOptions) {
    this.balancer = new LoadBalancer(options.urls, {
      strategy: options.loadBalancingStrategy,
      ringSize: options.affinityHashRing,
      healthRetryAfterMillis: options.healthRetryAfterMillis,
    });
  }

  /** The logger of the client. */
  get logger(): SafeLogger {
    return this.options.logger;
  }

  /** Runs `spec` under the retry policy; resolves with a 2xx answer or rejects with a QueenError. */
  async request(spec: RequestSpec): Promise<HttpResponse> {
    assertNoDotSegment(spec.path);
    const failover = this.options.enableFailover && this.options.urls.length > 1;
    const order = this.balancer.order(spec.affinityKey);
    const plan = failover ? order : Array.from({ length: Math.max(1, this.options.retryAttempts) }, () => order[0]!);
    let lastError: QueenError | undefined;
    for (let attempt = 1; attempt <= plan.length; attempt++) {
      const url = plan[attempt - 1]!;
      try {
        const response = await this.attempt(url, spec);
        this.balancer.markHealthy(url);
        return response;
      } catch (error) {
        const failure = error as QueenError;
        lastError = failure;
        if (failure.code === 'ABORTED' || (spec.longPoll && failure.code === 'TIMEOUT')) throw failure;
        if (!isRetriable(failure) && !(failure.code === 'HTTP' && failure.status !== undefined && this.options.retryStatuses?.includes(failure.status))) throw failure;
        const info = this.failures.get(failure) ?? {};
        if (spec.replay === 'connect-only' && !info.neverConnected) throw failure;
        this.balancer.markFailed(url);
        if (attempt === plan.length) break;
        this.options.logger.warn('request failed, retrying', { method: spec.method, path: stripQuery(spec.path), url, attempt, code: failure.code, status: failure.status });
        const delay = info.retryAfterMillis ?? (failover ? 0 : backoffMillis(this.options.retryDelayMillis, attempt));
        if (delay > 0) await sleep(delay, spec.signal);
      }
    }
    throw lastError!;
  }

  private async attempt(baseUrl: string, spec: RequestSpec): Promise<HttpResponse> {
    if (spec.signal?.aborted) throw new QueenError('ABORTED', 'Request aborted', { url: baseUrl });
    const controller = new AbortController();
    let timedOut = false;
    const timeoutMillis = spec.timeoutMillis ?? this.options.timeoutMillis;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMillis);
    const onAbort = () => controller.abort();
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    // A Headers object is case-insensitive: a user header that differs from ours only in case replaces it
    // (docs/client.md rule 1) instead of being joined to it (`Bearer a, x`).
    const headers = new Headers();
    if (spec.body !== undefined) headers.set('Content-Type', 'application/json');
    if (this.options.bearerToken) headers.set('Authorization', `Bearer ${this.options.bearerToken}`);
    for (const [name, value] of Object.entries(this.options.headers)) headers.set(name, value);
    const carrier = this.options.traceHeaders?.();
    if (carrier) {
      headers.set('traceparent', carrier.traceparent);
      if (carrier.tracestate !== undefined) headers.set('tracestate', carrier.tracestate);
    }
    const init: RequestInit = { method: spec.method, headers, signal: controller.signal };
    if (spec.body !== undefined) init.body = JSON.stringify(spec.body);
    try {
      let res: Response;
      let text: string;
      try {
        res = await this.options.fetch(`${baseUrl}${spec.path}`, init);
        text = await res.text();
      } catch (cause) {
        if (spec.signal?.aborted) throw new QueenError('ABORTED', 'Request aborted', { url: baseUrl, cause });
        if (timedOut) throw new QueenError('TIMEOUT', `Request timed out after ${timeoutMillis} ms`, { url: baseUrl, cause });
        const error = new QueenError('NETWORK', `Network error: ${describe(cause)}`, { url: baseUrl, cause });
        this.failures.set(error, { neverConnected: neverConnected(cause) });
        throw error;
      }
      const body = parseBody(res, text);
      if (res.status < 200 || res.status >= 300) {
        const brokerText = body !== null && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string' ? (body as { error: string }).error : undefined;
        const error = new QueenError('HTTP', brokerText ?? `HTTP ${res.status}: ${res.statusText}`, { status: res.status, body, url: baseUrl });
        if (res.status === 429 || res.status === 503) {
          const retryAfterMillis = parseRetryAfter(res.headers.get('retry-after'));
          if (retryAfterMillis !== undefined) this.failures.set(error, { retryAfterMillis });
        }
        throw error;
      }
      return { status: res.status, headers: res.headers, body, url: baseUrl };
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** 204 or empty -> null; JSON when the text parses (whatever the content type says); otherwise the text. */
function parseBody(res: Response, text: string): unknown {
  if (res.status === 204 || text.length === 0) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function describe(cause: unknown): string {
  const inner = (cause as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (inner && typeof inner.code === 'string') return inner.code;
  return cause instanceof Error ? cause.message : String(cause);
}

function stripQuery(path: string): string {
  const at = path.indexOf('?');
  return at === -1 ? path : path.slice(0, at);
}
