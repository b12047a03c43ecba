/**
 * HTTP access to one broker of a chaos run: raw answers (status, parsed JSON and the body text), so the
 * harness can classify every non-2xx answer by its error text, and short transport-error labels.
 *
 * Design: one undici Pool per broker slot for the whole run. The slot keeps its port across restarts, and the
 * Pool reconnects by itself: requests on a connection the killed broker held reject (socket closed/reset),
 * requests while it is down reject with ECONNREFUSED, and the first request after the restart opens a new
 * connection. Nothing is retried here: the producers and consumers decide what a failure means.
 * Paths and methods come from the SDK's API layer (`@queen/client/api`).
 */
import { pathOf, routes, type ApiRoute, type PathParams } from '@queen/client/api';
import { Pool } from 'undici';
import { matchAckResults, type AckKey } from '../ack-match.js';

/** A raw answer. */
export interface RawAnswer {
  statusCode: number;
  /** The parsed JSON body (undefined when empty or not JSON). */
  body: unknown;
  /** The body text (for error classification). */
  text: string;
}

/** One pushed item as sent. */
export interface ChaosPushItem {
  queue: string;
  partition: string;
  payload: unknown;
  transactionId: string;
}

/** One popped message, as much of it as the harness needs. */
export interface ChaosMessage {
  id: string;
  transactionId: string;
  partition: string;
  partitionId: string;
  leaseId: string;
}

/** One /ack/batch item. */
export interface ChaosAckItem {
  transactionId: string;
  partitionId: string;
  leaseId: string;
  status: 'completed';
}

type Json = Record<string, unknown>;

/** True for a JSON object. */
export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
}

/** The `error` text of an error body, or a prefix of the body text. */
export function errorText(answer: RawAnswer): string {
  if (isRecord(answer.body) && typeof answer.body['error'] === 'string') return answer.body['error'];
  return answer.text.slice(0, 120);
}

/** A short, stable label for a transport error: its code (ECONNREFUSED, UND_ERR_SOCKET, ...) or name. */
export function transportErrorLabel(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const cause = (error as { cause?: unknown }).cause;
    const causeCode = cause instanceof Error ? (cause as { code?: unknown }).code : undefined;
    if (typeof causeCode === 'string' && code === 'UND_ERR_SOCKET') return `${code}/${causeCode}`;
    if (typeof code === 'string') return code;
    if (typeof causeCode === 'string') return causeCode;
    return error.name;
  }
  return String(error);
}

/** Parses the per-item push results into a status per request index ('missing' when absent). */
export function pushStatuses(body: unknown, count: number): string[] {
  const statuses = Array.from({ length: count }, () => 'missing');
  const list = Array.isArray(body) ? body : [];
  list.forEach((item: unknown, position) => {
    if (!isRecord(item)) return;
    const index = typeof item['index'] === 'number' ? item['index'] : position;
    if (index >= 0 && index < count) statuses[index] = str(item['status']) ?? 'unknown';
  });
  return statuses;
}

/** The messages of a 200 pop answer. */
export function popMessages(body: unknown): ChaosMessage[] {
  if (!isRecord(body) || !Array.isArray(body['messages'])) return [];
  const leaseId = str(body['leaseId']) ?? '';
  const partition = str(body['partition']) ?? '';
  const partitionId = str(body['partitionId']) ?? '';
  return body['messages'].filter(isRecord).map((m) => ({
    id: str(m['id']) ?? '',
    transactionId: str(m['transactionId']) ?? '',
    partition: str(m['partition']) ?? partition,
    partitionId: str(m['partitionId']) ?? partitionId,
    leaseId: str(m['leaseId']) || leaseId,
  }));
}

/**
 * The per-item ack results of a 200 /ack/batch answer, in request order, matched by transactionId and
 * partitionId (ack-match.ts); null when the answer is not an array.
 */
export function ackResults(body: unknown, items: readonly AckKey[]): ({ success: boolean; error: string | null } | undefined)[] | null {
  return Array.isArray(body) ? matchAckResults(items, body) : null;
}

/** A client for one broker slot. */
export class ChaosClient {
  private readonly pool: Pool;

  /** `baseUrl` is the slot's root URL; `connections` caps concurrent requests. */
  constructor(readonly baseUrl: string, connections: number) {
    this.pool = new Pool(baseUrl, {
      connections, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000, connectTimeout: 5_000,
    });
  }

  /** The `push` route. */
  push(items: readonly ChaosPushItem[]): Promise<RawAnswer> {
    return this.call(routes.push, {}, { body: { items } });
  }

  /** Wildcard long-poll pop in queue mode, no autoAck. */
  pop(queue: string, batch: number, timeoutMs: number): Promise<RawAnswer> {
    return this.call(routes.popQueue, { queue }, { query: { batch, wait: true, timeout: timeoutMs, autoAck: false } });
  }

  /** The `ackBatch` route. */
  ack(acknowledgments: readonly ChaosAckItem[]): Promise<RawAnswer> {
    return this.call(routes.ackBatch, {}, { body: { acknowledgments } });
  }

  /** The `configure` route; throws unless 2xx. */
  async configure(queue: string, options: Record<string, unknown>): Promise<void> {
    const answer = await this.call(routes.configure, {}, { body: { queue, options } });
    if (answer.statusCode < 200 || answer.statusCode >= 300) {
      throw new Error(`configure ${queue}: HTTP ${answer.statusCode} ${answer.text.slice(0, 200)}`);
    }
  }

  /** The `deleteQueue` route; the HTTP status. */
  async deleteQueue(queue: string): Promise<number> {
    return (await this.call(routes.deleteQueue, { queue })).statusCode;
  }

  /** The `health` route's status code, or 0 on a transport error. */
  async health(): Promise<number> {
    try {
      return (await this.call(routes.health, {})).statusCode;
    } catch {
      return 0;
    }
  }

  /** Closes the pool (waits for requests in flight). */
  async close(): Promise<void> {
    await this.pool.close();
  }

  /** Drops every connection at once (requests in flight reject). */
  async destroy(): Promise<void> {
    await this.pool.destroy();
  }

  private async call<P extends string>(route: ApiRoute<P>, params: PathParams<P>, input: { query?: Record<string, string | number | boolean>; body?: unknown } = {}): Promise<RawAnswer> {
    const payload = input.body;
    const response = await this.pool.request({
      method: route.method,
      path: pathOf(route, params, input.query),
      ...(payload === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) }),
    });
    const text = await response.body.text();
    let body: unknown;
    try {
      body = text.length > 0 ? (JSON.parse(text) as unknown) : undefined;
    } catch {
      body = undefined;
    }
    return { statusCode: response.statusCode, body, text };
  }
}
