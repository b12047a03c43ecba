/**
 * `POST /api/v1/transaction` (docs/api.md 7.1): every 400 is checked over the whole request before anything runs;
 * an unknown operation type is not a 400 but fails the transaction when its turn comes. More operations than
 * TRANSACTION_MAX_OPERATIONS is a 413 before anything runs.
 */
import type { Reply } from '@queen/client/api';
import { invalid, transactionTooLarge } from '../../errors.js';
import { executeTransaction, type TransactionOperation } from '../../core/transaction.js';
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';
import { ackItem, type AckFields } from './ack.js';
import { parsePushItems } from './push.js';

/** Type-checks the operations of a transaction body. */
export function parseOperations(raw: unknown): TransactionOperation[] {
  if (!Array.isArray(raw)) throw invalid('operations array required');
  if (raw.length === 0) throw invalid('operations array cannot be empty');
  return raw.map((op: unknown): TransactionOperation => {
    if (op === null || typeof op !== 'object' || Array.isArray(op)) throw invalid('Each operation must be an object');
    const fields = op as Record<string, unknown>;
    if (fields.type === 'push') {
      if (!Array.isArray(fields.items)) throw invalid('push operation requires an items array');
      return { type: 'push', items: parsePushItems(fields.items, {}) };
    }
    if (fields.type === 'ack') {
      if (typeof fields.transactionId !== 'string' || typeof fields.partitionId !== 'string') {
        throw invalid('ack operation requires transactionId and partitionId');
      }
      return { type: 'ack', item: ackItem(fields as AckFields, fields.consumerGroup) };
    }
    return { type: 'unknown', rawType: fields.type };
  });
}

/**
 * Refuses a transaction of more than `max` operations (push items and acks, counted before anything is
 * parsed): 413 naming the limit. One transaction holds one connection and its locks until it commits.
 */
export function assertOperationCount(raw: unknown, max: number): void {
  if (!Array.isArray(raw)) return;
  let count = 0;
  for (const op of raw as unknown[]) {
    const items = op !== null && typeof op === 'object' ? (op as { items?: unknown }).items : undefined;
    count += Array.isArray(items) ? items.length : 1;
  }
  if (count > max) throw transactionTooLarge(count, max);
}

/** `requiredLeases`: the string elements of an array; anything else is no list. */
function parseRequiredLeases(raw: unknown): string[] {
  return Array.isArray(raw) ? raw.filter((id): id is string => typeof id === 'string') : [];
}

/** The transaction route. */
export function transactionRoutes(core: RouteContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/transaction',
      access: 'READ_WRITE',
      body: 'required',
      transaction: true,
      async handle({ body, subject }) {
        assertOperationCount(body.operations, core.bounds.transactionMaxOperations);
        const operations = parseOperations(body.operations);
        const requiredLeases = parseRequiredLeases(body.requiredLeases);
        const outcome = await executeTransaction(operations, requiredLeases, { ...core.transactions, producerSub: subject });
        const reply: Reply<'transaction'> = { transactionId: outcome.transactionId, success: outcome.success,
          ...(outcome.error === undefined ? {} : { error: outcome.error }), results: outcome.results };
        return { status: 200, body: reply };
      },
    },
  ];
}
