/**
 * `queen.transaction()` (docs/client.md): acks and pushes collected in call order and committed atomically by
 * the `transaction` operation of the API layer. A transaction is not idempotent (its pushes would be duplicates on replay), so it
 * is replayed or failed over only when the connection could not be opened at all.
 */
import { ackStatus } from './ack.js';
import { transaction, type TransactionOperation, type TransactionResponse } from './api/messaging.js';
import { recording } from './api/route.js';
import { BUILDER_DEFAULTS } from './defaults.js';
import { QueenError } from './errors.js';
import type { Transport } from './http.js';
import type { SafeLogger } from './log.js';
import { toWireItems } from './push-wire.js';
import type { AckStatus, Message, PushInput, TransactionResult } from './types.js';

type Operation = TransactionOperation;

/** A push target inside a transaction. */
export class TransactionQueue<T> {
  private partitionName: string = BUILDER_DEFAULTS.partition;

  constructor(
    private readonly owner: TransactionBuilder,
    private readonly queueName: string,
    private readonly add: (op: Operation) => void,
    private readonly logger: SafeLogger,
  ) {}

  /** Sets the partition of the push (default `Default`). */
  partition(name: string = BUILDER_DEFAULTS.partition): this {
    this.partitionName = name;
    return this;
  }

  /** Adds a push operation; returns the transaction for chaining. */
  push(items: PushInput<T> | PushInput<T>[]): TransactionBuilder {
    const list = Array.isArray(items) ? (items as PushInput<T>[]) : [items];
    this.add({ type: 'push', items: toWireItems(this.queueName, this.partitionName, list, this.logger) });
    return this.owner;
  }
}

/** Collects operations; `commit()` sends them in one request. */
export class TransactionBuilder {
  private readonly operations: Operation[] = [];
  private readonly requiredLeases = new Set<string>();

  constructor(
    private readonly transport: Transport,
    private readonly logger: SafeLogger,
  ) {}

  /** Adds one ack operation per message. */
  ack(messages: Message | Message[], status: boolean | AckStatus = 'completed', context: { consumerGroup?: string; group?: string; error?: string } = {}): this {
    for (const message of Array.isArray(messages) ? messages : [messages]) {
      const op: Extract<Operation, { type: 'ack' }> = {
        type: 'ack',
        transactionId: message.transactionId || message.id,
        partitionId: message.partitionId,
        status: ackStatus(status),
        consumerGroup: context.consumerGroup ?? context.group ?? message.consumerGroup,
      };
      if (message.leaseId) {
        op.leaseId = message.leaseId;
        this.requiredLeases.add(message.leaseId);
      }
      if (context.error !== undefined) op.error = context.error;
      this.operations.push(op);
    }
    return this;
  }

  /** A push target: `.partition(p).push(items)`. */
  queue<T = unknown>(name: string): TransactionQueue<T> {
    return new TransactionQueue<T>(this, name, (op) => this.operations.push(op), this.logger);
  }

  /** Commits everything atomically; rejects with TRANSACTION_FAILED when the broker rolled back. */
  async commit(): Promise<TransactionResult> {
    if (this.operations.length === 0) throw new QueenError('VALIDATION', 'Transaction has no operations');
    const http = recording(this.transport);
    const body = (await transaction(http, { operations: this.operations, requiredLeases: [...this.requiredLeases] }, { replay: 'connect-only' })) as Partial<TransactionResponse> | null;
    if (body?.success !== true) {
      throw new QueenError('TRANSACTION_FAILED', (body as { error?: string } | null)?.error ?? 'Transaction failed', { body, results: body?.results ?? [], status: http.last!.status, url: http.last!.url });
    }
    return { transactionId: String(body.transactionId), success: true, results: body.results ?? [] };
  }
}
