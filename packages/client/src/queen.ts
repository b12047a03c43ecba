/**
 * The client (docs/client.md): validates options, owns the transport, the push buffers and the running
 * consumes, and hands builders a {@link ClientContext}. `close()` is idempotent: it stops consumes (waiting up to
 * 30 s for running handlers and their acks), drains buffers, and from then on push/pop/consume reject CLOSED.
 */
import { ack, renew } from './ack.js';
import { Admin } from './admin.js';
import { PushBuffers } from './buffer.js';
import type { ActiveConsumer, ClientContext } from './context.js';
import { CLIENT_DEFAULTS } from './defaults.js';
import { createTransport, normaliseUrls } from './api/transport.js';
import { deleteConsumerGroup, updateSubscription, type DeleteConsumerGroupResponse, type UpdateSubscriptionResponse } from './api/groups.js';
import { QueenError } from './errors.js';
import type { HttpResponse, RequestSpec, Transport } from './http.js';
import type { SafeLogger } from './log.js';
import { QueueBuilder } from './queue.js';
import { registerShutdown, unregisterShutdown } from './signals.js';
import { TransactionBuilder } from './transaction.js';
import type { AckBatchResponse, AckContext, AckResponse, AckStatus, BufferStats, Message, QueenOptions, RenewResult } from './types.js';

const CLOSE_WAIT_MILLIS = 30_000;

/** A Queen client bound to one or several brokers. */
export class Queen {
  /** The client's logger (silent unless configured). */
  readonly logger: SafeLogger;
  private readonly transport: Transport;
  private readonly buffers: PushBuffers;
  private readonly consumers = new Set<ActiveConsumer>();
  private readonly context: ClientContext;
  private adminApi: Admin | undefined;
  private closing: Promise<void> | undefined;
  private closed = false;

  /** `new Queen(url)`, `new Queen([urls])` or `new Queen({...options})`. */
  constructor(config: string | string[] | QueenOptions) {
    const { urls, options } = normaliseUrls(config);
    this.transport = createTransport(options);
    this.logger = this.transport.logger;
    this.buffers = new PushBuffers(this.transport, this.logger);
    this.context = {
      transport: this.transport,
      logger: this.logger,
      buffers: this.buffers,
      telemetry: options.telemetry ?? null,
      assertOpen: () => {
        if (this.closed || this.closing) throw new QueenError('CLOSED', 'Client is closed');
      },
      track: (consumer) => {
        this.consumers.add(consumer);
        return () => this.consumers.delete(consumer);
      },
      ack: (target, status, context) => this.ack(target, status, context),
      renew: (targets, seconds) => renew(this.transport, targets, seconds),
    };
    if (options.handleSignals ?? CLIENT_DEFAULTS.handleSignals) registerShutdown(this);
    this.logger.debug('client created', { urls: urls.length, strategy: options.loadBalancingStrategy ?? CLIENT_DEFAULTS.loadBalancingStrategy });
  }

  /** A new builder for queue `name` (no name: a namespace/task discovery consumer). */
  queue<T = unknown>(name?: string): QueueBuilder<T> {
    return new QueueBuilder<T>(this.context, name);
  }

  /** Acks a message, an array of messages, or a transactionId (with `context.partitionId`). */
  ack(target: Message[], status?: boolean | AckStatus, context?: AckContext): Promise<AckBatchResponse>;
  ack(target: Message | string, status?: boolean | AckStatus, context?: AckContext): Promise<AckResponse>;
  ack(target: Message | Message[] | string, status?: boolean | AckStatus, context?: AckContext): Promise<AckResponse | AckBatchResponse>;
  ack(target: Message | Message[] | string, status?: boolean | AckStatus, context?: AckContext): Promise<AckResponse | AckBatchResponse> {
    return ack(this.transport, target, status, context);
  }

  /** Extends leases: one result for one target, an array for an array. */
  renew(target: string | Message, seconds?: number): Promise<RenewResult>;
  renew(target: Array<string | Message>, seconds?: number): Promise<RenewResult[]>;
  async renew(target: string | Message | Array<string | Message>, seconds?: number): Promise<RenewResult | RenewResult[]> {
    if (Array.isArray(target)) return renew(this.transport, target, seconds);
    const [result] = await renew(this.transport, [target], seconds);
    return result ?? { leaseId: typeof target === 'string' ? target : target.leaseId, success: false, newExpiresAt: null, error: 'No lease to renew' };
  }

  /** A new transaction: `.ack(...)`, `.queue(q).partition(p).push(...)`, then `.commit()`. */
  transaction(): TransactionBuilder {
    return new TransactionBuilder(this.transport, this.logger);
  }

  /** Sends every client-side buffer now. */
  flushAllBuffers(): Promise<void> {
    return this.buffers.flushAll();
  }

  /** Counts of the client-side buffers. */
  getBufferStats() {
    return this.buffers.stats() satisfies BufferStats;
  }

  /** Deletes a consumer group's state on every queue (operation `deleteConsumerGroup`). */
  deleteConsumerGroup(group: string, deleteMetadata = true): Promise<DeleteConsumerGroupResponse> {
    return deleteConsumerGroup(this.transport, group, { deleteMetadata });
  }

  /** Re-times where the group's never-contacted cursors start (operation `updateSubscription`). */
  updateConsumerGroupTimestamp(group: string, timestamp: string | Date): Promise<UpdateSubscriptionResponse> {
    return updateSubscription(this.transport, group, timestamp);
  }

  /**
   * One raw request under the client's transport policy (URLs, bearer token, retries, timeouts): for tools that
   * need the status, headers or exact failure of a route (the CLI), where the builders would hide them.
   */
  request(spec: RequestSpec): Promise<HttpResponse> {
    return this.transport.request(spec);
  }

  /** Admin and monitoring routes. */
  get admin(): Admin {
    this.adminApi ??= new Admin(this.transport);
    return this.adminApi;
  }

  /** Stops consumes, waits for their handlers (max 30 s), drains buffers. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** Adds this client to the process-wide SIGINT/SIGTERM handler. */
  enableGracefulShutdown(): void {
    if (!this.closed && !this.closing) registerShutdown(this);
  }

  /** Removes this client from the process-wide SIGINT/SIGTERM handler. */
  disableGracefulShutdown(): void {
    unregisterShutdown(this);
  }

  private async shutdown(): Promise<void> {
    unregisterShutdown(this);
    const running = [...this.consumers];
    for (const consumer of running) consumer.stop();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = await Promise.race([
      Promise.allSettled(running.map((c) => c.done)).then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_WAIT_MILLIS))),
    ]);
    clearTimeout(timer);
    if (!waited) this.logger.warn('close: consumers still running after 30 s', { consumers: running.length });
    try {
      await this.buffers.close();
    } finally {
      this.closed = true;
      this.logger.info('client closed');
    }
  }
}

