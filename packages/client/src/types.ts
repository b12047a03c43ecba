/**
 * The public types of the SDK (docs/client.md). Wire objects keep the broker's field names exactly (push results
 * are snake_case because the broker's are), so a value can be logged or compared against docs/api.md as is.
 */
import type { PoppedMessage, PopQuery } from './api/messaging.js';
import type { Reply, Wire } from './api/route.js';
import type { QueenTelemetry } from './telemetry.js';
import type { QueenError } from './errors.js';

/** Ack statuses the broker accepts (`success` is an alias of `completed`). */
export type AckStatus = NonNullable<Wire<'AckItem'>['status']>;

/** Where a new consumer group starts reading. */
export type SubscriptionMode = NonNullable<PopQuery['subscriptionMode']>;

/** Strategies to spread requests over several broker URLs. */
export type LoadBalancingStrategy = 'affinity' | 'round-robin' | 'session';

/** A pluggable logger; `debug` is optional. Metadata never carries bodies or tokens. */
export interface Logger {
  debug?(msg: string, meta?: object): void;
  info(msg: string, meta?: object): void;
  warn(msg: string, meta?: object): void;
  error(msg: string, meta?: object): void;
}

/** Options of `new Queen(...)` (docs/client.md). */
export interface QueenOptions {
  url?: string;
  urls?: string[];
  timeoutMillis?: number;
  retryAttempts?: number;
  retryDelayMillis?: number;
  loadBalancingStrategy?: LoadBalancingStrategy;
  affinityHashRing?: number;
  enableFailover?: boolean;
  healthRetryAfterMillis?: number;
  bearerToken?: string | null;
  headers?: Record<string, string>;
  handleSignals?: boolean;
  logger?: Logger | null;
  fetch?: typeof fetch;
  /** Tracing hooks (docs/client.md "Tracing"): `openTelemetry()` of `@queen/client/otel`; absent: no tracing work. */
  telemetry?: QueenTelemetry | null;
}

/** Queue options of docs/api.md §2.2, all optional. */
export type QueueOptions = Partial<Wire<'QueueOptions'>>;

/** A trace event recorded with `message.trace()`. */
export interface TraceEvent {
  traceName?: string | string[];
  eventType?: string;
  data: unknown;
}

/** Outcome of `message.trace()`; it never throws. */
export interface TraceResult {
  success: boolean;
  traceId?: string;
  error?: string;
}

/** A delivered message. `data` is the pushed payload, typed by the queue's type parameter. */
export type Message<T = unknown> = Readonly<PoppedMessage<T>> & {
  /** Per-message status override for a batch `queen.ack([...])`. */
  _status?: AckStatus;
  /** Per-message error override for a batch `queen.ack([...])`. */
  _error?: string;
  /** Records a trace event for this message (non-enumerable). */
  trace(event: TraceEvent): Promise<TraceResult>;
};

/** Metadata a pushed item may carry next to its payload. */
export interface PushMeta {
  transactionId?: string;
  traceId?: string;
  /** W3C trace context of this item (with `telemetry`, the producer span's when absent). */
  traceparent?: string;
  tracestate?: string;
}

/** One pushed item: `{data}`, `{payload}`, or the whole object as the payload. */
export type PushInput<T> = ({ data: T } & PushMeta) | ({ payload: T } & PushMeta) | T;

/** An item as sent by a push (operation `push`): the SDK always names the partition and the transactionId. */
export type PushItem<T = unknown> = Wire<'PushItem'> & { partition: string; payload: T; transactionId: string };

/** Push result `queued`. */
export type QueuedResult = Wire<'PushQueued'>;

/** Push result `duplicate`. */
export type DuplicateResult = Wire<'PushDuplicate'>;

/** Push result `failed`. */
export type FailedResult = Wire<'PushFailed'>;

/** Push result `buffered` (the broker's maintenance or failover buffer). */
export type BufferedResult = Wire<'PushBuffered'>;

/** One push result, discriminated on `status`. */
export type PushResultItem = Wire<'PushResult'>;

/**
 * A database client the SDK can push through, inside the caller's transaction: a `pg` Client or PoolClient,
 * or anything with this method (resolving with `{rows}`; a JSON column may come back parsed or as text).
 */
export interface SqlClient {
  query(text: string, values?: unknown[]): PromiseLike<{ rows: unknown[] }>;
}

/** Options of `push()`. */
export interface PushOptions {
  /** Push through this database client (the SQL API's `queen.produce`) instead of HTTP: part of its transaction. */
  db?: SqlClient;
}

/** What a push resolves with while client-side buffering is on. */
export interface BufferedPush {
  buffered: true;
  count: number;
}

/** Options of `.buffer()`. */
export interface BufferOptions {
  messageCount?: number;
  timeMillis?: number;
  maxSize?: number;
}

/** `queen.getBufferStats()`. */
export interface BufferStats {
  activeBuffers: number;
  totalBufferedMessages: number;
  /** Age in ms of the oldest buffered item, 0 when empty. */
  oldestBufferAge: number;
  flushesPerformed: number;
}

/** One item of an ack answer. */
export type AckItemResult = Wire<'AckResult'>;

/** What `queen.ack()` resolves with; numeric keys mirror `results` as the official client returns them. */
export interface AckResponse {
  success: boolean;
  error?: string;
  results: AckItemResult[];
  failed: AckItemResult[];
  [index: number]: AckItemResult;
}

/**
 * What `queen.ack([...])` of an array resolves with: a real array of the per-message results (so `.length`,
 * `.map`, `Array.isArray` work), carrying the `success`/`error`/`results`/`failed` summary of AckResponse.
 */
export type AckBatchResponse = AckItemResult[] & Omit<AckResponse, number>;

/** Ack context: group, error text, and the ids a transactionId target needs. */
export interface AckContext {
  group?: string;
  consumerGroup?: string;
  error?: string;
  partitionId?: string;
  leaseId?: string;
}

/** One lease renewal outcome. */
export interface RenewResult {
  leaseId: string;
  success: boolean;
  newExpiresAt: string | null;
  error: string | null;
}

/** A committed transaction. */
export interface TransactionResult {
  transactionId: string;
  success: true;
  results: unknown[];
}

/** The stored options echoed by `/configure`. */
export type ConfigureResult = Wire<'ConfigureResult'>;

/** What `queue(name).delete()` resolves with. */
export type DeleteResult = Reply<'deleteQueue'>;

/** One DLQ entry (docs/api.md §7.5). */
export type DlqEntry<T = unknown> = Omit<Wire<'DlqList'>['messages'][number], 'data'> & { data: T };

/** A page of DLQ entries. */
export type DlqPage<T = unknown> = Omit<Wire<'DlqList'>, 'messages'> & { messages: DlqEntry<T>[] };

/** What a consume resolves with once every loop has stopped. */
export interface ConsumeResult {
  processed: number;
  failed: number;
}

/** Options of `consume()`: a hard stop and progress callbacks (their errors are logged, never fatal). */
export interface ConsumeOptions {
  /** Aborting it stops every loop at once: pops in flight are abandoned, the consume resolves. */
  signal?: AbortSignal;
  /** A pop failed with an error that passes (server error, network, 429); the loop polls again in 1 s. */
  onPopRetry?: (error: QueenError) => void;
  /** An auto-ack the broker refused (or whose request failed): the message stays leased, then is redelivered. */
  onAckRefused?: (refusal: { transactionId: string; error: string }) => void;
}

/** Query parameters of admin reads: `undefined`/`null` entries are left out, Dates become ISO strings. */
export type QueryParams = Record<string, string | number | boolean | Date | null | undefined>;
