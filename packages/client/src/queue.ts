/**
 * The fluent queue builder (docs/client.md). Setters mutate this builder's own state and return it; every
 * `queen.queue()` call starts fresh, so builders are never shared by accident. Type parameters: `T` is the
 * payload type (typing `push` inputs and `msg.data`), `Mode` switches the consume handler between a message
 * and an array, `Buffered` switches what `push` resolves with.
 */
import { bufferOptions } from './buffer.js';
import type { ClientContext } from './context.js';
import { ConsumeBuilder, renewInterval, type ConsumeHandler, type ConsumeMode, type ConsumeSpec } from './consumer.js';
import { BUILDER_DEFAULTS, QUEUE_DEFAULTS } from './defaults.js';
import { DLQBuilder } from './dlq.js';
import { QueenError } from './errors.js';
import { configure } from './api/messaging.js';
import { deleteQueue } from './api/resources.js';
import { recording } from './api/route.js';
import type { HttpResponse } from './http.js';
import { OperationBuilder } from './operation.js';
import { peek, type PeekedMessage, type PeekOptions } from './peek.js';
import { pop } from './pop.js';
import { PushBuilder } from './push.js';
import type { BufferedPush, BufferOptions, ConfigureResult, ConsumeOptions, DeleteResult, Message, PushInput, PushOptions, PushResultItem, QueueOptions, SqlClient, SubscriptionMode } from './types.js';

/** Builder for one queue (or, without a name, a namespace/task discovery consumer). */
export class QueueBuilder<T = unknown, Mode extends ConsumeMode = 'batch', Buffered extends boolean = false> {
  private readonly spec: ConsumeSpec;
  private options: QueueOptions | undefined;
  private buffering: Required<BufferOptions> | undefined;
  private explicitRenew: { on: boolean; intervalMillis: number | undefined } = { on: false, intervalMillis: undefined };

  constructor(
    private readonly ctx: ClientContext,
    queueName: string | undefined,
  ) {
    this.spec = {
      queue: queueName,
      partition: undefined,
      namespace: undefined,
      task: undefined,
      group: undefined,
      batch: BUILDER_DEFAULTS.batch,
      partitions: undefined,
      wait: BUILDER_DEFAULTS.wait,
      timeoutMillis: BUILDER_DEFAULTS.timeoutMillis,
      leaseSeconds: undefined,
      autoAck: undefined,
      subscriptionMode: undefined,
      subscriptionFrom: undefined,
      each: false,
      limit: undefined,
      idleMillis: undefined,
      concurrency: BUILDER_DEFAULTS.concurrency,
      renewIntervalMillis: undefined,
    };
  }

  /** The queue name (undefined for a discovery consumer). */
  get name(): string | undefined {
    return this.spec.queue;
  }

  /** Namespace: sent by `create()`, filter of the discovery pop. */
  namespace(ns: string): this {
    this.spec.namespace = ns;
    return this;
  }

  /** Task: sent by `create()`, filter of the discovery pop. */
  task(t: string): this {
    this.spec.task = t;
    return this;
  }

  /** Queue options for `create()`, merged over QUEUE_DEFAULTS. */
  config(options: QueueOptions): this {
    this.options = { ...options };
    return this;
  }

  /** Partition to push to and to pop from (`Default` pops use the queue-wide route). */
  partition(p: string): this {
    this.spec.partition = p;
    return this;
  }

  /** Turns on client-side push buffering (defaults: 100 items, 1000 ms, maxSize 4 x messageCount). */
  buffer(options?: BufferOptions): QueueBuilder<T, Mode, true> {
    this.buffering = bufferOptions(options);
    return this as unknown as QueueBuilder<T, Mode, true>;
  }

  /** Consumer group of pops, and default group of acks. */
  group(g: string): this {
    this.spec.group = g;
    return this;
  }

  /** Messages per pop (min 1). */
  batch(n: number): this {
    this.spec.batch = Math.max(1, Math.floor(n));
    return this;
  }

  /** Max partitions per pop (sent whenever set; <= 0 lifts the cap). */
  partitions(n: number): this {
    this.spec.partitions = Math.floor(n);
    return this;
  }

  /** Long-poll pops (default true). */
  wait(b: boolean): this {
    this.spec.wait = b;
    return this;
  }

  /** Long-poll deadline in ms (default 30000); the HTTP timeout is this + 5000. */
  timeoutMillis(ms: number): this {
    this.spec.timeoutMillis = Math.max(0, Math.floor(ms));
    return this;
  }

  /** Lease length of pops, in seconds. */
  leaseSeconds(s: number): this {
    this.spec.leaseSeconds = Math.floor(s);
    return this;
  }

  /** Consume: stop after `n` messages handled. */
  limit(n: number): this {
    this.spec.limit = Math.max(0, Math.floor(n));
    return this;
  }

  /** Consume: stop after `ms` without a message. */
  idleMillis(ms: number): this {
    this.spec.idleMillis = Math.max(0, ms);
    return this;
  }

  /** Consume: parallel pop loops (default 1). */
  concurrency(n: number): this {
    this.spec.concurrency = Math.max(1, Math.floor(n));
    return this;
  }

  /** Consume: ack after the handler (default on). Pop: `true` sends `autoAck=true` (at-most-once). */
  autoAck(b: boolean): this {
    this.spec.autoAck = b;
    return this;
  }

  /** Consume: renew the leases of running handlers every `intervalMillis`. */
  renewLease(b: boolean, intervalMillis?: number): this {
    this.explicitRenew = { on: b, intervalMillis };
    return this;
  }

  /** Where a new named group starts (`all`, `new`, `new-only`). */
  subscriptionMode(m: SubscriptionMode): this {
    this.spec.subscriptionMode = m;
    return this;
  }

  /** Where a new named group starts: `now` or a timestamp. */
  subscriptionFrom(f: 'now' | string | Date): this {
    this.spec.subscriptionFrom = f instanceof Date ? f.toISOString() : f;
    return this;
  }

  /** The consume handler receives one message at a time. */
  each(): QueueBuilder<T, 'each', Buffered> {
    this.spec.each = true;
    return this as unknown as QueueBuilder<T, 'each', Buffered>;
  }

  /** Creates or reconfigures the queue (operation `configure`) with `{...QUEUE_DEFAULTS, ...config}`. */
  create(): OperationBuilder<ConfigureResult> {
    return new OperationBuilder(async () => {
      const queue = this.requireName('create');
      const http = recording(this.ctx.transport);
      const body = await configure(http, { queue, namespace: this.spec.namespace ?? null, task: this.spec.task ?? null, options: { ...QUEUE_DEFAULTS, ...this.options } });
      return bodyOrError<ConfigureResult>(body, http.last!);
    });
  }

  /** Deletes the queue (operation `deleteQueue`). */
  delete(): OperationBuilder<DeleteResult> {
    return new OperationBuilder(async () => {
      const http = recording(this.ctx.transport);
      const body = await deleteQueue(http, this.requireName('delete'));
      return bodyOrError<DeleteResult>(body, http.last!);
    });
  }

  /** Pushes through the caller's database client, inside its transaction (never buffered). */
  push(items: PushInput<T> | PushInput<T>[], options: PushOptions & { db: SqlClient }): PushBuilder<T, PushResultItem[]>;
  /** Pushes to this queue and partition (or into the client-side buffer after `.buffer()`). */
  push(items: PushInput<T> | PushInput<T>[], options?: PushOptions): PushBuilder<T, Buffered extends true ? BufferedPush : PushResultItem[]>;
  push(items: PushInput<T> | PushInput<T>[], options: PushOptions = {}): PushBuilder<T, BufferedPush | PushResultItem[]> {
    const list = Array.isArray(items) ? (items as PushInput<T>[]) : [items];
    const target = { queue: () => this.requireName('push'), partition: this.spec.partition ?? BUILDER_DEFAULTS.partition, buffer: this.buffering, db: options.db };
    return new PushBuilder(this.ctx, target, list);
  }

  /** One pop. 4xx rejects; a long-poll timeout or persisting transport failure resolves `[]`. */
  async pop(): Promise<Message<T>[]> {
    this.ctx.assertOpen();
    return pop<T>(this.ctx.transport, this.ctx.logger, { ...this.spec });
  }

  /** The pop/handle/ack loop; resolves with `{processed, failed}` when it stops. */
  consume(handler: ConsumeHandler<T, Mode>, options: ConsumeOptions = {}): ConsumeBuilder<T, Mode> {
    const spec: ConsumeSpec = { ...this.spec, renewIntervalMillis: this.explicitRenew.on ? renewInterval(this.spec.leaseSeconds, this.explicitRenew.intervalMillis) : undefined };
    return new ConsumeBuilder<T, Mode>(this.ctx, spec, handler, options);
  }

  /**
   * The queue's messages (this builder's partition when set) without claiming any: the newest `last`, then with
   * `follow` the new ones (docs/client.md "Peek").
   */
  peek(options: PeekOptions = {}): AsyncGenerator<PeekedMessage> {
    this.ctx.assertOpen();
    return peek(this.ctx.transport, { queue: this.requireName('peek'), partition: this.spec.partition }, options);
  }

  /** Sends this builder's buffered items now. */
  async flushBuffer(): Promise<void> {
    await this.ctx.buffers.flush(this.requireName('flushBuffer'), this.spec.partition ?? BUILDER_DEFAULTS.partition);
  }

  /** The dead letters of this queue (optionally of one group). */
  dlq(group?: string): DLQBuilder<T> {
    return new DLQBuilder<T>(this.ctx.transport, this.spec.queue, group ?? this.spec.group);
  }

  private requireName(action: string): string {
    if (this.spec.queue === undefined) throw new QueenError('VALIDATION', `${action}() needs a queue name`);
    return this.spec.queue;
  }
}

function bodyOrError<R>(body: unknown, res: HttpResponse): R {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === 'string') throw new QueenError('HTTP', error, { status: res.status, body, url: res.url });
  return body as R;
}
