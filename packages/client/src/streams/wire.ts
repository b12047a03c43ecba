/**
 * The streaming SDK's HTTP: `/streams/v1/queries`, `/cycle`, `/state/get` (STREAMS.md §3) and the source pop,
 * over `fetch` with the upstream policy: network errors, 5xx, 408 and 429 are retried up to 3 times (30 s per
 * attempt, back-off 100 ms doubling to 5 s, with jitter); other 4xx are final. A cycle may therefore arrive twice;
 * the broker's ack check (§3.3.5) makes the replay fail instead of committing twice.
 */
import { StreamsError, type StreamsErrorCode } from './errors.js';
import type { SourceMessage } from './types.js';
import type { StateOp } from './window-reduce.js';
import { assertNoDotSegment, seg } from '../http.js';

const RETRIES = 3;
const TIMEOUT_MS = 30_000;
const POLL_GRACE_MS = 5000;

/** One item pushed by a cycle (API.md §4.4). */
export interface CyclePushItem {
  queue: string;
  partition: string;
  payload: unknown;
  transactionId?: string;
}

/** The ack of a cycle. */
export interface CycleAck {
  transactionId: string;
  leaseId: string;
  status: 'completed';
  count: number;
}

/** A cycle request. */
export interface CycleRequest {
  query_id: string;
  partition_id: string;
  consumer_group: string;
  state_ops: StateOp[];
  push_items: CyclePushItem[];
  ack: CycleAck | null;
  release_lease: boolean;
}

/** A state/get request. */
export interface StateGetRequest {
  query_id: string;
  partition_id: string;
  keys?: string[];
  key_prefix?: string;
  ripe_at_or_before?: number;
  /** With ripe_at_or_before: rows that a message this group has not consumed yet belongs to are not ripe. */
  consumer_group?: string;
}

/** Source pop parameters. */
export interface PopRequest {
  queue: string;
  group: string;
  batch: number;
  partitions: number;
  timeoutMillis: number;
  subscriptionMode: string | undefined;
  subscriptionFrom: string | undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function retriable(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

function errorText(body: unknown): string | undefined {
  const error = (body as { error?: unknown } | null)?.error;
  return typeof error === 'string' ? error : undefined;
}

/** HTTP to one broker for one running stream. */
export class StreamsWire {
  private readonly base: string;

  constructor(
    url: string,
    private readonly bearerToken: string | undefined,
  ) {
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new Error('Stream.run requires { url: "<queen-url>" } so the SDK can call /streams/v1/* endpoints');
    this.base = url.replace(/\/+$/, '');
  }

  /** Sends one request under the retry policy; resolves with the status and parsed body of the final answer. */
  private async send(method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number, code: StreamsErrorCode): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (this.bearerToken) headers.Authorization = `Bearer ${this.bearerToken}`;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    let delay = 100;
    assertNoDotSegment(path);
    for (let attempt = 0; ; attempt++) {
      let failure: StreamsError;
      try {
        const res = await fetch(this.base + path, { method, headers, body: payload, signal: AbortSignal.timeout(timeoutMs) });
        const text = await res.text();
        let parsed: unknown = null;
        if (text.length > 0) {
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = { raw: text };
          }
        }
        if (res.ok || !retriable(res.status)) return { status: res.status, body: parsed };
        failure = new StreamsError(code, errorText(parsed) ?? `HTTP ${res.status}`, { status: res.status, body: parsed });
      } catch (cause) {
        failure = new StreamsError(code, `${method} ${path} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
      }
      if (attempt >= RETRIES) throw failure;
      await sleep(delay + Math.floor(Math.random() * delay * 0.3));
      delay = Math.min(5000, delay * 2);
    }
  }

  private async call<R>(path: string, body: unknown, code: StreamsErrorCode, fallback: string): Promise<R> {
    const { status, body: answer } = await this.send('POST', path, body, TIMEOUT_MS, code);
    if (status < 200 || status >= 300 || (answer as { success?: unknown } | null)?.success === false || answer === null) {
      throw new StreamsError(code, errorText(answer) ?? (status >= 300 ? `HTTP ${status}` : fallback), { status, body: answer });
    }
    return answer as R;
  }

  /** `POST /streams/v1/queries`; a config_hash mismatch rejects with STREAMS_CONFIG_HASH_MISMATCH and a hint. */
  async register(body: { name: string; source_queue: string; config_hash: string; reset: boolean; sink_queue?: string }): Promise<{ query_id: string; name: string; fresh: boolean; reset: boolean }> {
    try {
      return await this.call('/streams/v1/queries', body, 'STREAMS_REGISTER_FAILED', 'register failed');
    } catch (error) {
      if (error instanceof StreamsError && (error.status === 409 || /config_hash mismatch/i.test(error.message))) {
        const hint = '\n\nHint: pass `reset: true` to Stream.run({...}) to wipe the existing queen_streams.state for this queryId, or pick a new queryId.';
        throw new StreamsError('STREAMS_CONFIG_HASH_MISMATCH', error.message + hint, { status: error.status ?? 409, body: error.body });
      }
      throw error;
    }
  }

  /** `POST /streams/v1/cycle`; a `success:false` answer rejects with STREAMS_CYCLE_FAILED and the broker's text. */
  cycle(body: CycleRequest): Promise<unknown> {
    return this.call('/streams/v1/cycle', body, 'STREAMS_CYCLE_FAILED', 'cycle commit failed');
  }

  /** `POST /streams/v1/state/get`: the shard's rows (key order) as a map. */
  async stateGet(body: StateGetRequest): Promise<Map<string, unknown>> {
    const answer = await this.call<{ rows?: unknown }>('/streams/v1/state/get', body, 'STREAMS_STATE_GET_FAILED', 'state.get failed');
    const rows = new Map<string, unknown>();
    if (Array.isArray(answer.rows)) {
      for (const row of answer.rows as Array<{ key?: unknown; value?: unknown }>) if (row && typeof row.key === 'string') rows.set(row.key, row.value);
    }
    return rows;
  }

  /** One long-poll pop of the source for the stream group; `[]` on 204. */
  async pop<T>(req: PopRequest): Promise<SourceMessage<T>[]> {
    const query = new URLSearchParams({ batch: String(req.batch), wait: 'true', timeout: String(req.timeoutMillis), consumerGroup: req.group });
    if (req.partitions > 1) query.set('partitions', String(req.partitions));
    if (req.subscriptionMode) query.set('subscriptionMode', req.subscriptionMode);
    if (req.subscriptionFrom) query.set('subscriptionFrom', req.subscriptionFrom);
    const path = `/api/v1/pop/queue/${seg(req.queue)}?${query.toString()}`;
    const { status, body } = await this.send('GET', path, undefined, req.timeoutMillis + POLL_GRACE_MS, 'STREAMS_POP_FAILED');
    if (status === 204 || body === null) return [];
    if (status < 200 || status >= 300) throw new StreamsError('STREAMS_POP_FAILED', errorText(body) ?? `HTTP ${status}`, { status, body });
    const messages = (body as { messages?: unknown }).messages;
    return Array.isArray(messages) ? (messages as SourceMessage<T>[]) : [];
  }
}
