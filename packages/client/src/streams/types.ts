/**
 * Public types of the streaming SDK: what user functions receive (the source message, the emit and gate
 * contexts), the window and run options, the handle and its metrics. Wire shapes of `/streams/v1/*` are in
 * wire.ts.
 */
import type { Logger, Message, SubscriptionMode } from '../types.js';

/** A popped source message as pre-stage functions see it (the broker's ten fields, typed by the payload). */
export type SourceMessage<T = unknown> = Omit<Message<T>, 'trace' | '_status' | '_error'>;

/** Anything a stream can read from or write to: a `queen.queue(name)` builder, or an object naming a queue. */
export interface QueueRef {
  readonly name?: string | undefined;
  readonly _queueName?: string;
  readonly queueName?: string;
}

/** What post-stage operators and terminals receive next to the value. Window fields are set after a window. */
export interface EmitContext {
  /** Source partition name. */
  partition: string;
  /** Source partition id (the state shard). */
  partitionId: string;
  /** The state key: the keyBy result, else the partition id. */
  key: string;
  windowKey: string | undefined;
  windowStart: number | undefined;
  windowEnd: number | undefined;
}

/** The emit context after a window with a reducer: the window fields are always set. */
export interface WindowContext extends EmitContext {
  /** Window start as ISO 8601 with milliseconds (UTC). */
  windowKey: string;
  /** Window start, epoch ms. */
  windowStart: number;
  /** Window end (exclusive; for sessions the last event time + gap), epoch ms. */
  windowEnd: number;
}

/** What a gate function receives next to the value. */
export interface GateContext<S extends object = Record<string, unknown>> {
  /** The key's state: a private copy of what the last allowed call left (or `{}`); kept only on allow. */
  state: Partial<S>;
  /** One `Date.now()` per cycle, for refill arithmetic. */
  streamTimeMs: number;
  partitionId: string;
  partition: string;
  key: string;
}

/** What a gate function returns. */
export type GateDecision = boolean | { allow: boolean };

/** Event-time extractor: epoch ms, a Date or an ISO string. */
export type EventTimeFn<T> = (message: SourceMessage<T>) => number | Date | string | null | undefined;

/** Options every window accepts (times in seconds unless the name says ms). */
export interface WindowCommonOptions<T> {
  /** Seconds after the window end during which events are still accepted (default 0). */
  gracePeriod?: number;
  /** How often quiet partitions are checked for ripe windows, ms (0 disables; default per window kind). */
  idleFlushMs?: number;
  /** Event-time mode: the event's time (default: processing time, the message's `createdAt`). */
  eventTime?: EventTimeFn<T>;
  /** Event time only: how far behind the highest event time seen the watermark trails, seconds (default 0). */
  allowedLateness?: number;
  /** Event time only: what happens to events below the watermark (default `drop`). */
  onLate?: 'drop' | 'include';
}

/** `windowTumbling` options. */
export interface TumblingOptions<T> extends WindowCommonOptions<T> {
  seconds: number;
}

/** `windowSliding` options: `size` must be an integer multiple of `slide`. */
export interface SlidingOptions<T> extends WindowCommonOptions<T> {
  size: number;
  slide: number;
}

/** `windowSession` options. */
export interface SessionOptions<T> extends WindowCommonOptions<T> {
  /** Silence (seconds) that closes a key's session. */
  gap: number;
}

/** Calendar units of `windowCron` (UTC; weeks start on Monday). */
export type CronEvery = 'second' | 'minute' | 'hour' | 'day' | 'week';

/** `windowCron` options. */
export interface CronOptions<T> extends WindowCommonOptions<T> {
  every: CronEvery;
}

/** Extractors of `aggregate`: one function of the carried value per output field. */
export type AggregateSpec<V> = Record<string, (value: V) => unknown>;

/** The value an `aggregate` emits: `min`/`max` are null until a number was seen; `avg` brings its helpers. */
export type AggregateResult<S> = { [K in keyof S]: K extends 'min' | 'max' ? number | null : number } & ('avg' extends keyof S
  ? { __avg_sum: number; __avg_count: number }
  : unknown);

/** Where the reported error happened. */
export type ErrorPhase = 'pop' | 'cycle' | 'gate-eval' | 'window-apply' | 'flush';

/** What `onError` receives next to the error. */
export interface ErrorContext {
  phase: ErrorPhase;
  /** Source partition id, when the error belongs to one. */
  partition?: string;
  /** The partition's messages (phase `cycle`). */
  messages?: SourceMessage[];
  /** The message being evaluated (phases `gate-eval`, `window-apply`). */
  message?: SourceMessage;
}

/** Options of `run()` (docs/streams-sdk.md). */
export interface RunOptions {
  /** Durable identity of the query. */
  queryId: string;
  /** Broker base URL. */
  url: string;
  bearerToken?: string;
  /** Source consumer group (default `streams.<queryId>`). */
  consumerGroup?: string;
  /** Messages per pop (default 200). */
  batchSize?: number;
  /** Partitions per pop (default 4). */
  maxPartitions?: number;
  /** Long-poll wait of a pop, ms (default 1000). */
  maxWaitMillis?: number;
  subscriptionMode?: SubscriptionMode;
  subscriptionFrom?: string;
  /** Wipe the query's state when the chain changed (default false). */
  reset?: boolean;
  /** Called for every reported error; a throwing handler is ignored. */
  onError?: (error: unknown, context: ErrorContext) => void;
  /** Stops the stream when aborted. */
  abortSignal?: AbortSignal;
  /** `{info, warn, error}`; default: warnings and errors on the console. */
  logger?: Logger;
  /**
   * Pops whose partitions are committed concurrently with the next pop (default 4; 1 = the official
   * client's strictly sequential loop). Cycles of one partition always run one after another.
   */
  pipelineDepth?: number;
}

/** Counters of a running stream (docs/streams-sdk.md). */
export interface StreamMetrics {
  cyclesTotal: number;
  flushCyclesTotal: number;
  messagesTotal: number;
  pushItemsTotal: number;
  stateOpsTotal: number;
  lateEventsTotal: number;
  errorsTotal: number;
  gateAllowsTotal: number;
  gateDenialsTotal: number;
  lastCycleAt: string | null;
  lastFlushAt: string | null;
  lastError: string | null;
  queryId: string;
  serverQueryId: string | null;
}

/** What `run()` resolves with. */
export interface StreamHandle {
  /** Stops the loop and the flush timer and waits for the current iteration; never releases leases. */
  stop(): Promise<void>;
  /** A snapshot of the counters. */
  metrics(): StreamMetrics;
}
