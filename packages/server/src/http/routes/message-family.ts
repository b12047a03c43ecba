/**
 * The routes of the transactions, messages and DLQ family (docs/api.md 7.1, 7.3, 7.4, 7.5), registered in the
 * route table as one block.
 */
import type { RouteContext } from '../context.js';
import type { Route } from '../route.js';
import { dlqRoutes } from './dlq.js';
import { messageRoutes } from './messages.js';
import { queueClearRoutes } from './queue-clear.js';
import { transactionRoutes } from './transaction.js';

/** Transaction, queue clear, message and DLQ routes. */
export function messageFamilyRoutes(core: RouteContext): Route[] {
  return [...transactionRoutes(core), ...queueClearRoutes(core), ...messageRoutes(core), ...dlqRoutes(core)];
}
