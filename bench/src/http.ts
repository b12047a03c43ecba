/**
 * HTTP access to a Queen broker (the Queen HTTP API) over undici.
 *
 * Design: one undici Pool (keep-alive, no pipelining) with enough connections for every concurrent worker of
 * a scenario, long-polls included. Each method issues one request, always reads the whole body, and narrows
 * the JSON into typed values without `any`. Non-2xx answers are returned as status codes, not thrown, so the
 * load loops can count them; only transport errors (refused, reset, timeout) throw. Paths and methods come
 * from the SDK's API layer (`@queen/client/api`): the bench spells no route itself, but keeps its own undici
 * pool (no retries, no failover: a load generator counts what each request got).
 */
import { pathOf, routes, type ApiRoute } from '@queen/client/api';
import { Pool } from 'undici';
import { matchAckResults, type AckResultItem } from './ack-match.js';

/** One item of a push request. */
export interface PushItem {
  queue: string;
  partition: string;
  payload: unknown;
  transactionId: string;
}

/** An item as the push endpoint accepts it: partition (default "Default") and transactionId may be left out. */
export interface PushRequestItem {
  queue: string;
  payload: unknown;
  partition?: string;
  transactionId?: string;
}

/** The broker's answer for one pushed item. */
export interface PushItemResult {
  index: number;
  transactionId: string;
  /** "queued" | "duplicate" | "failed" | "buffered" (kept as a string: the broker may add states). */
  status: string;
  messageId: string | null;
  partitionId: string | null;
  error: string | null;
}

/** A push answer: the HTTP status and, for 2xx, one result per item. */
export interface PushResponse {
  statusCode: number;
  results: PushItemResult[];
}

/** Query parameters of a wildcard pop. */
export interface PopOptions {
  /** Items per pop; omitted means the broker default (DEFAULT_BATCH_SIZE, 1 unless configured). */
  batch?: number;
  wait: boolean;
  timeoutMs: number;
  autoAck: boolean;
  /** Consumer group; omitted means queue mode. */
  consumerGroup?: string;
  /** Maximum partitions claimed per call (0 = no cap); omitted means the broker default (1). */
  partitions?: number;
}

/** One popped message. */
export interface PopMessage {
  id: string;
  transactionId: string;
  data: unknown;
  partition: string;
  partitionId: string;
  leaseId: string | null;
}

/** A pop answer: 200 with messages, or 204 (empty `messages`). */
export interface PopResponse {
  statusCode: number;
  messages: PopMessage[];
  leaseId: string | null;
  partitionsClaimed: number;
}

/** One acknowledgement of an /ack/batch request. */
export interface AckItem {
  transactionId: string;
  partitionId: string;
  leaseId: string | null;
  status: 'completed' | 'failed';
}

/** An /ack/batch answer: per-item success, in request order (matched by transactionId and partitionId). */
export interface AckResponse {
  statusCode: number;
  results: (AckResultItem | undefined)[];
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function parsePushResults(body: unknown): PushItemResult[] {
  const list = Array.isArray(body) ? body : isRecord(body) && Array.isArray(body['results']) ? body['results'] : [];
  return list.filter(isRecord).map((item, position) => ({
    index: typeof item['index'] === 'number' ? item['index'] : position,
    transactionId: str(item['transaction_id'] ?? item['transactionId']) ?? '',
    status: str(item['status']) ?? 'unknown',
    messageId: str(item['message_id'] ?? item['messageId']),
    partitionId: str(item['partition_id'] ?? item['partitionId']),
    error: str(item['error']),
  }));
}

function parsePopMessages(body: Json): PopMessage[] {
  const list = Array.isArray(body['messages']) ? body['messages'] : [];
  const partition = str(body['partition']) ?? '';
  const partitionId = str(body['partitionId']) ?? '';
  const leaseId = str(body['leaseId']);
  return list.filter(isRecord).map((m) => ({
    id: str(m['id']) ?? '',
    transactionId: str(m['transactionId']) ?? '',
    data: m['data'],
    partition: str(m['partition']) ?? partition,
    partitionId: str(m['partitionId']) ?? partitionId,
    leaseId: str(m['leaseId']) ?? leaseId,
  }));
}

/** Sent as `Authorization: Bearer <token>` on every request when set: for brokers with JWT_ENABLED=true. */
const TOKEN = process.env['QUEEN_BENCH_TOKEN'];
const AUTHORIZATION: Record<string, string> = TOKEN ? { authorization: `Bearer ${TOKEN}` } : {};

/** Requests a client sent, per kind (read by --profile to turn CPU into CPU per request). */
export interface RequestCounts {
  push: number;
  pop: number;
  ack: number;
}

/** The paths of the hot routes, built once (the load generator shares the box: per-request work is measured). */
const PUSH_PATH = pathOf(routes.push, {});
const ACK_PATH = pathOf(routes.ackBatch, {});

/** A client for one broker; create one per process and `close()` it at the end. */
export class QueenClient {
  /** Requests sent so far, per kind. */
  readonly sent: RequestCounts = { push: 0, pop: 0, ack: 0 };
  private readonly pool: Pool;
  private readonly prefix: string;
  /** The `popQueue` path of each queue popped so far. */
  private readonly popPaths = new Map<string, string>();

  /** `baseUrl` is the broker's root URL, e.g. http://127.0.0.1:6632. */
  constructor(readonly baseUrl: string, connections = 64) {
    const url = new URL(baseUrl);
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, { connections, pipelining: 1, headersTimeout: 120_000, bodyTimeout: 120_000 });
  }

  /** The `push` route. */
  async push(items: readonly PushRequestItem[]): Promise<PushResponse> {
    this.sent.push++;
    const { statusCode, body } = await this.call(routes.push, PUSH_PATH, { items });
    return { statusCode, results: statusCode >= 200 && statusCode < 300 ? parsePushResults(body) : [] };
  }

  /**
   * The `popQueue` route (wildcard over the queue's partitions). Aborting `signal` abandons the request (it
   * then rejects), which the broker sees as the client going away.
   */
  async pop(queue: string, options: PopOptions, signal?: AbortSignal): Promise<PopResponse> {
    this.sent.pop++;
    const query = new URLSearchParams();
    if (options.batch !== undefined) query.set('batch', String(options.batch));
    query.set('wait', String(options.wait));
    query.set('timeout', String(options.timeoutMs));
    query.set('autoAck', String(options.autoAck));
    if (options.consumerGroup !== undefined) query.set('consumerGroup', options.consumerGroup);
    if (options.partitions !== undefined) query.set('partitions', String(options.partitions));
    let path = this.popPaths.get(queue);
    if (path === undefined) this.popPaths.set(queue, (path = pathOf(routes.popQueue, { queue })));
    const { statusCode, body } = await this.call(routes.popQueue, `${path}?${query}`, undefined, signal);
    if (statusCode !== 200 || !isRecord(body)) return { statusCode, messages: [], leaseId: null, partitionsClaimed: 0 };
    return {
      statusCode,
      messages: parsePopMessages(body),
      leaseId: str(body['leaseId']),
      partitionsClaimed: typeof body['partitionsClaimed'] === 'number' ? body['partitionsClaimed'] : 1,
    };
  }

  /** The `ackBatch` route. */
  async ack(acknowledgments: readonly AckItem[], consumerGroup?: string): Promise<AckResponse> {
    this.sent.ack++;
    const payload = consumerGroup === undefined ? { acknowledgments } : { acknowledgments, consumerGroup };
    const { statusCode, body } = await this.call(routes.ackBatch, ACK_PATH, payload);
    return { statusCode, results: matchAckResults(acknowledgments, statusCode >= 200 && statusCode < 300 ? body : undefined) };
  }

  /** The `configure` route; throws unless 2xx. */
  async configure(queue: string, options: Record<string, unknown>): Promise<void> {
    const { statusCode, text } = await this.call(routes.configure, pathOf(routes.configure, {}), { queue, options });
    if (statusCode < 200 || statusCode >= 300) throw new Error(`configure ${queue}: HTTP ${statusCode} ${text.slice(0, 200)}`);
  }

  /** The `deleteQueue` route; returns the HTTP status. */
  async deleteQueue(queue: string): Promise<number> {
    const { statusCode } = await this.call(routes.deleteQueue, pathOf(routes.deleteQueue, { queue }));
    return statusCode;
  }

  /** The `health` route; true on 200, false on any other answer or transport error. */
  async health(): Promise<boolean> {
    try {
      return (await this.call(routes.health, pathOf(routes.health, {}))).statusCode === 200;
    } catch {
      return false;
    }
  }

  /** Closes the pool's connections (waits for requests in flight). */
  async close(): Promise<void> {
    await this.pool.close();
  }

  /** Sends `path` (built by the API layer's `pathOf` for `route`) with `route`'s method. */
  private async call(route: ApiRoute, path: string, payload?: unknown, signal?: AbortSignal):
    Promise<{ statusCode: number; body: unknown; text: string }> {
    const response = await this.pool.request({
      method: route.method,
      path: this.prefix + path,
      ...(signal === undefined ? {} : { signal }),
      ...(payload === undefined ? { headers: AUTHORIZATION } : { headers: { ...AUTHORIZATION, 'content-type': 'application/json' }, body: JSON.stringify(payload) }),
    });
    const text = await response.body.text();
    return { statusCode: response.statusCode, body: parseJson(text), text };
  }
}
