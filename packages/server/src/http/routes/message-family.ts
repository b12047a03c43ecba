/**
 * The routes of the transactions, messages and DLQ family (API.md 7.1, 7.3, 7.4, 7.5), registered in the
 * route table as one block.
 */
import type { Services } from '../../services.js';
import type { Route } from '../route.js';
import { dlqRoutes } from './dlq.js';
import { messageRoutes } from './messages.js';
import { queueClearRoutes } from './queue-clear.js';
import { transactionRoutes } from './transaction.js';

/** Transaction, queue clear, message and DLQ routes. */
export function messageFamilyRoutes(services: Services): Route[] {
  return [...transactionRoutes(services), ...queueClearRoutes(services), ...messageRoutes(services), ...dlqRoutes(services)];
}
