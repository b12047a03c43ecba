/**
 * The fluent, immutable `Stream` builder with the grammar of the official client (docs/streams-sdk.md),
 * typed end to end. The phase of a chain is its type: `Stream` (before any state: functions see the source
 * message), `WindowedStream` (after a window: reduce/aggregate become available), and `PostStream` (after a
 * reducer or gate: functions see `(value, ctx)`, with the window fields typed when a window came first).
 * Every combinator returns a new object; chains are checked again at run time by pipeline.ts, so untyped
 * callers fail with upstream's messages.
 */
import type { ConsumeMode } from '../consumer.js';
import type { QueueBuilder } from '../queue.js';
import { configHashOf } from './config-hash.js';
import { compile, queueNameOf, type OpNode, type UserFn } from './pipeline.js';
import { StreamRunner } from './runner.js';
import type {
  AggregateResult,
  AggregateSpec,
  CronOptions,
  EmitContext,
  GateContext,
  GateDecision,
  QueueRef,
  RunOptions,
  SessionOptions,
  SlidingOptions,
  SourceMessage,
  StreamHandle,
  TumblingOptions,
  WindowContext,
} from './types.js';
import { cronWindow, sessionWindow, slidingWindow, tumblingWindow } from './windows.js';

type Awaitable<X> = X | Promise<X>;

/** Options of `.to(queue, opts)`: the sink partition, a constant or a function of the value (default: the source partition). */
export interface SinkOptions<V> {
  partition?: string | ((value: V) => unknown);
}

/** What every phase shares: the source, the operator list, terminals and `run()`. */
abstract class Chain<T, V, C extends EmitContext> {
  /** @internal */
  protected constructor(
    protected readonly source: unknown,
    protected readonly ops: readonly OpNode[],
  ) {}

  /** Terminal: pushes every value to `queue` in the cycle's transaction (exactly once per source message). */
  to(queue: QueueRef, options: SinkOptions<V> = {}): RunnableStream {
    return new RunnableStream(this.source, [...this.ops, { kind: 'sink', queue: queueNameOf(queue, 'sink'), partition: options.partition as string | ((value: unknown) => unknown) | undefined }]);
  }

  /** Terminal: runs `fn` per value before the cycle commits (at-least-once). */
  foreach(fn: (value: V, ctx: C) => Awaitable<unknown>): RunnableStream {
    return new RunnableStream(this.source, [...this.ops, { kind: 'foreach', fn: fn as UserFn }]);
  }

  /** Compiles the chain, registers the query, starts the loop; resolves with the handle. */
  run(options: RunOptions): Promise<StreamHandle> {
    return runChain(this.source, this.ops, options);
  }

  /** The chain's operator kinds, in order (for logging and tests). */
  describe(): string[] {
    return this.ops.map((op) => op.kind);
  }

  /** The `config_hash` this chain registers with (compiles it, so a malformed chain throws). */
  configHash(): Promise<string> {
    return chainHash(this.source, this.ops);
  }

  /** @internal Phantom use of the type parameters. */
  protected declare readonly _types?: [T, V, C];
}

async function runChain(source: unknown, ops: readonly OpNode[], options: RunOptions): Promise<StreamHandle> {
  if (!options || typeof options.queryId !== 'string' || options.queryId === '') throw new Error('run({ queryId }) is required');
  const pipeline = compile(queueNameOf(source, 'source'), ops);
  return new StreamRunner(pipeline, options).start();
}

async function chainHash(source: unknown, ops: readonly OpNode[]): Promise<string> {
  return configHashOf(compile(queueNameOf(source, 'source'), ops).descriptors);
}

/** A chain that ends in a terminal: only `run()` remains. */
export class RunnableStream {
  /** @internal */
  constructor(
    private readonly source: unknown,
    private readonly ops: readonly OpNode[],
  ) {}

  /** Compiles the chain, registers the query, starts the loop; resolves with the handle. */
  run(options: RunOptions): Promise<StreamHandle> {
    return runChain(this.source, this.ops, options);
  }

  /** The chain's operator kinds, in order. */
  describe(): string[] {
    return this.ops.map((op) => op.kind);
  }

  /** The `config_hash` this chain registers with. */
  configHash(): Promise<string> {
    return chainHash(this.source, this.ops);
  }
}

/** A stream before any state: `T` is the source payload, `V` the carried value (initially `T`). */
export class Stream<T = unknown, V = T> extends Chain<T, V, EmitContext> {
  /**
   * A stream reading `queue` (a `queen.queue(name)` builder, or `{queueName}`). The second argument is
   * accepted for source compatibility with the official client, which ignores it too.
   */
  static from<T>(queue: QueueBuilder<T, ConsumeMode, boolean>, sourceOptions?: Record<string, unknown>): Stream<T, T>;
  static from<T = unknown>(queue: QueueRef, sourceOptions?: Record<string, unknown>): Stream<T, T>;
  static from<T = unknown>(queue: QueueRef, _sourceOptions?: Record<string, unknown>): Stream<T, T> {
    queueNameOf(queue, 'source');
    return new Stream<T, T>(queue, []);
  }

  /** @internal */
  constructor(source: unknown, ops: readonly OpNode[]) {
    super(source, ops);
  }

  private with<U>(op: OpNode): Stream<T, U> {
    return new Stream<T, U>(this.source, [...this.ops, op]);
  }

  /** Replaces the carried value with `fn(message)` (the source message, whatever came before). */
  map<U>(fn: (message: SourceMessage<T>) => Awaitable<U>): Stream<T, U> {
    return this.with({ kind: 'map', fn: fn as UserFn });
  }

  /** Drops the element when `predicate(message)` is falsy. */
  filter(predicate: (message: SourceMessage<T>) => unknown): Stream<T, V> {
    return this.with({ kind: 'filter', fn: predicate as UserFn });
  }

  /** One element per item of `fn(message)` (must return an array). */
  flatMap<U>(fn: (message: SourceMessage<T>) => Awaitable<readonly U[]>): Stream<T, U> {
    return this.with({ kind: 'flatMap', fn: fn as UserFn });
  }

  /** The state key of later stateful operators: `String(fn(message))` (default: the source partition id). */
  keyBy(fn: (message: SourceMessage<T>) => unknown): Stream<T, V> {
    return this.with({ kind: 'keyBy', fn: fn as UserFn });
  }

  /** Fixed, epoch-aligned windows of `seconds`. */
  windowTumbling(options: TumblingOptions<T>): WindowedStream<T, V> {
    return new WindowedStream<T, V>(this.source, [...this.ops, { kind: 'window', window: tumblingWindow(options) }]);
  }

  /** Overlapping windows of `size` seconds every `slide` seconds. */
  windowSliding(options: SlidingOptions<T>): WindowedStream<T, V> {
    return new WindowedStream<T, V>(this.source, [...this.ops, { kind: 'window', window: slidingWindow(options) }]);
  }

  /** Per-key sessions closed by `gap` seconds of silence (needs a reducer). */
  windowSession(options: SessionOptions<T>): WindowedStream<T, V> {
    return new WindowedStream<T, V>(this.source, [...this.ops, { kind: 'window', window: sessionWindow(options) }]);
  }

  /** UTC calendar windows: every second, minute, hour, day or week (Monday). */
  windowCron(options: CronOptions<T>): WindowedStream<T, V> {
    return new WindowedStream<T, V>(this.source, [...this.ops, { kind: 'window', window: cronWindow(options) }]);
  }

  /**
   * Per-message allow/deny with persistent per-key state (rate limiters). The first deny ends the cycle: the
   * allowed prefix commits, the rest stays leased and returns in order when the lease expires.
   */
  gate<S extends object = Record<string, unknown>>(fn: (value: V, ctx: GateContext<S>) => Awaitable<GateDecision>): PostStream<T, V, EmitContext> {
    return new PostStream<T, V, EmitContext>(this.source, [...this.ops, { kind: 'gate', fn: fn as UserFn }]);
  }
}

/** A stream after a window: stateless operators still see the source message; add a reducer to aggregate. */
export class WindowedStream<T, V> extends Chain<T, V, EmitContext> {
  /** @internal */
  constructor(source: unknown, ops: readonly OpNode[]) {
    super(source, ops);
  }

  private with<U>(op: OpNode): WindowedStream<T, U> {
    return new WindowedStream<T, U>(this.source, [...this.ops, op]);
  }

  /** Replaces the carried value with `fn(message)`. */
  map<U>(fn: (message: SourceMessage<T>) => Awaitable<U>): WindowedStream<T, U> {
    return this.with({ kind: 'map', fn: fn as UserFn });
  }

  /** Drops the element when `predicate(message)` is falsy. */
  filter(predicate: (message: SourceMessage<T>) => unknown): WindowedStream<T, V> {
    return this.with({ kind: 'filter', fn: predicate as UserFn });
  }

  /** One element per item of `fn(message)`. */
  flatMap<U>(fn: (message: SourceMessage<T>) => Awaitable<readonly U[]>): WindowedStream<T, U> {
    return this.with({ kind: 'flatMap', fn: fn as UserFn });
  }

  /** The state key: `String(fn(message))`. */
  keyBy(fn: (message: SourceMessage<T>) => unknown): WindowedStream<T, V> {
    return this.with({ kind: 'keyBy', fn: fn as UserFn });
  }

  /** Folds the values of each (window, key); `initial` is deep-cloned per window. */
  reduce<A>(fn: (acc: A, value: V) => Awaitable<A>, initial: A): PostStream<T, A, WindowContext>;
  reduce<A>(fn: (acc: A | undefined, value: V) => Awaitable<A>): PostStream<T, A | undefined, WindowContext>;
  reduce<A>(fn: (acc: A, value: V) => Awaitable<A>, ...initial: [A?]): PostStream<T, A, WindowContext> {
    return new PostStream<T, A, WindowContext>(this.source, [...this.ops, { kind: 'reduce', fn: fn as UserFn, initial: initial[0], hasInitial: initial.length > 0 && initial[0] !== undefined }]);
  }

  /** Named running aggregates: `count`, `sum`, `min`, `max`, `avg`, any other name a running total. */
  aggregate<S extends AggregateSpec<V>>(spec: S): PostStream<T, AggregateResult<S>, WindowContext> {
    return new PostStream<T, AggregateResult<S>, WindowContext>(this.source, [...this.ops, { kind: 'aggregate', spec }]);
  }
}

/** A stream after a reducer or gate: operators get `(value, ctx)`. */
export class PostStream<T, V, C extends EmitContext> extends Chain<T, V, C> {
  /** @internal */
  constructor(source: unknown, ops: readonly OpNode[]) {
    super(source, ops);
  }

  private with<U>(op: OpNode): PostStream<T, U, C> {
    return new PostStream<T, U, C>(this.source, [...this.ops, op]);
  }

  /** Replaces the value with `fn(value, ctx)`. */
  map<U>(fn: (value: V, ctx: C) => Awaitable<U>): PostStream<T, U, C> {
    return this.with({ kind: 'map', fn: fn as UserFn });
  }

  /** Drops the value when `predicate(value, ctx)` is falsy. */
  filter(predicate: (value: V, ctx: C) => unknown): PostStream<T, V, C> {
    return this.with({ kind: 'filter', fn: predicate as UserFn });
  }

  /** One value per item of `fn(value, ctx)`. */
  flatMap<U>(fn: (value: V, ctx: C) => Awaitable<readonly U[]>): PostStream<T, U, C> {
    return this.with({ kind: 'flatMap', fn: fn as UserFn });
  }
}
