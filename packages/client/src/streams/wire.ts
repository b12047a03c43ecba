/**
 * The streaming SDK's HTTP: `/streams/v1/queries`, `/cycle`, `/state/get` (docs/streams.md) and the source pop,
 * through the API layer (`../api/`) on the client's transport, with the upstream streams policy as its
 * settings: network errors, timeouts, 5xx, 408 and 429 are retried up to 3 times (30 s per attempt, back-off
 * 100 ms doubling; a Retry-After is honoured); other 4xx are final. A cycle may therefore arrive twice; the
 * broker's ack check (§3.3.5) makes the replay fail instead of committing twice. Transport failures become
 * {@link StreamsError}s with the step's code.
 */
import { cycle, getState, popQueue, registerQuery, type CycleRequest, type RegisterQueryRequest, type StateGetRequest } from '../api/index.js';
import { createTransport } from '../api/transport.js';
import type { ApiRequester } from '../api/route.js';
import { QueenError } from '../errors.js';
import { StreamsError, type StreamsErrorCode } from './errors.js';
import type { SourceMessage } from './types.js';
import type { SubscriptionMode } from '../types.js';

export type { CycleAck, CyclePushItem, CycleRequest, StateGetRequest } from '../api/index.js';

const RETRIES = 3;
const TIMEOUT_MS = 30_000;
const POLL_GRACE_MS = 5000;
const FIRST_BACKOFF_MS = 100;

/** Source pop parameters. */
export interface PopRequest {
  queue: string;
  group: string;
  batch: number;
  partitions: number;
  timeoutMillis: number;
  subscriptionMode: SubscriptionMode | undefined;
  subscriptionFrom: string | undefined;
}

function errorText(body: unknown): string | undefined {
  const error = (body as { error?: unknown } | null)?.error;
  return typeof error === 'string' ? error : undefined;
}

/** HTTP to one broker for one running stream. */
export class StreamsWire {
  private readonly http: ApiRequester;

  constructor(url: string, bearerToken: string | undefined) {
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new Error('Stream.run requires { url: "<queen-url>" } so the SDK can call /streams/v1/* endpoints');
    this.http = createTransport({ url, bearerToken: bearerToken ?? null, timeoutMillis: TIMEOUT_MS, retryAttempts: RETRIES + 1, retryDelayMillis: FIRST_BACKOFF_MS, retryStatuses: [408], enableFailover: false });
  }

  /** Runs one API call; a transport failure becomes a StreamsError of `code` (the broker's text when it answered). */
  private async run<R>(code: StreamsErrorCode, what: string, call: () => Promise<R>): Promise<R> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof QueenError && error.code === 'HTTP' && error.status !== undefined) {
        throw new StreamsError(code, errorText(error.body) ?? `HTTP ${error.status}`, { status: error.status, body: error.body });
      }
      throw new StreamsError(code, `${what} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  /** A 2xx answer that is empty or `success:false` is a failure of the step. */
  private static checked<R>(answer: R, code: StreamsErrorCode, fallback: string): R {
    if (answer === null || (answer as { success?: unknown }).success === false) throw new StreamsError(code, errorText(answer) ?? fallback, { status: 200, body: answer });
    return answer;
  }

  /** `POST /streams/v1/queries`; a config_hash mismatch rejects with STREAMS_CONFIG_HASH_MISMATCH and a hint. */
  async register(body: RegisterQueryRequest): Promise<{ query_id: string; name: string; fresh: boolean; reset: boolean }> {
    try {
      const answer = await this.run('STREAMS_REGISTER_FAILED', 'POST register', () => registerQuery(this.http, body));
      return StreamsWire.checked(answer, 'STREAMS_REGISTER_FAILED', 'register failed') as { query_id: string; name: string; fresh: boolean; reset: boolean };
    } catch (error) {
      if (error instanceof StreamsError && (error.status === 409 || /config_hash mismatch/i.test(error.message))) {
        const hint = '\n\nHint: pass `reset: true` to Stream.run({...}) to wipe the existing queen_streams.state for this queryId, or pick a new queryId.';
        throw new StreamsError('STREAMS_CONFIG_HASH_MISMATCH', error.message + hint, { status: error.status ?? 409, body: error.body });
      }
      throw error;
    }
  }

  /** `POST /streams/v1/cycle`; a `success:false` answer rejects with STREAMS_CYCLE_FAILED and the broker's text. */
  async cycle(body: CycleRequest): Promise<unknown> {
    const answer = await this.run('STREAMS_CYCLE_FAILED', 'POST cycle', () => cycle(this.http, body));
    return StreamsWire.checked(answer, 'STREAMS_CYCLE_FAILED', 'cycle commit failed');
  }

  /** `POST /streams/v1/state/get`: the shard's rows (key order) as a map. */
  async stateGet(body: StateGetRequest): Promise<Map<string, unknown>> {
    const answer = StreamsWire.checked(await this.run('STREAMS_STATE_GET_FAILED', 'POST state/get', () => getState(this.http, body)), 'STREAMS_STATE_GET_FAILED', 'state.get failed') as { rows?: unknown };
    const rows = new Map<string, unknown>();
    if (Array.isArray(answer.rows)) {
      for (const row of answer.rows as Array<{ key?: unknown; value?: unknown }>) if (row && typeof row.key === 'string') rows.set(row.key, row.value);
    }
    return rows;
  }

  /** One long-poll pop of the source for the stream group; `[]` on 204. */
  async pop<T>(req: PopRequest): Promise<SourceMessage<T>[]> {
    const query = {
      batch: req.batch,
      wait: true,
      timeout: req.timeoutMillis,
      consumerGroup: req.group,
      partitions: req.partitions > 1 ? req.partitions : undefined,
      subscriptionMode: req.subscriptionMode || undefined,
      subscriptionFrom: req.subscriptionFrom || undefined,
    };
    const answer = await this.run('STREAMS_POP_FAILED', 'GET pop', () => popQueue<T>(this.http, req.queue, query, { timeoutMillis: req.timeoutMillis + POLL_GRACE_MS }));
    if (answer === null) return [];
    const messages = (answer as { messages?: unknown }).messages;
    return Array.isArray(messages) ? (messages as SourceMessage<T>[]) : [];
  }
}
