/**
 * A realistic installation for the dashboard's browser tests and screenshots: a shop (orders over six
 * customer partitions consumed by two groups and queue mode, payments with a dead-letter queue, a toy e-mail
 * queue with 8 pending and nobody popping), analytics events pushed through a second broker, an audit log
 * with one large payload, failed acks and a trace. Every call is asserted.
 */
import assert from 'node:assert/strict';
import { ackBatch, configure as configureQueue, listMessages, popPartition, push as pushItems, recordTrace, recording, type ApiRequester } from '@queen/client/api';
import { expectStatus } from '../../../server/test/support/sdk-api.js';

export const QUEUES = {
  orders: 'shop.orders',
  payments: 'shop.payments',
  emails: 'shop.emails',
  events: 'analytics.events',
  audit: 'ops.audit-log',
} as const;

/** The large payload's byte size (above the list's preview cap). */
export const LARGE_PAYLOAD_BYTES = 6000;

async function push(api: ApiRequester, queue: string, partition: string, payloads: unknown[]): Promise<void> {
  await expectStatus(api, (h) => pushItems(h, { items: payloads.map((payload) => ({ queue, partition, payload })) }), 201);
}

/** Pops up to `batch` from one partition for a group (null: queue mode) and acks them with `status`. */
async function consume(api: ApiRequester, queue: string, partition: string, group: string | null, batch: number, status: 'completed' | 'dlq' | 'failed' = 'completed', error?: string): Promise<number> {
  const seen = recording(api);
  const popped = await popPartition(seen, queue, partition, { batch, ...(group === null ? {} : { consumerGroup: group }) });
  assert.ok(seen.last?.status === 200 || seen.last?.status === 204, JSON.stringify(popped));
  if (popped === null) return 0;
  const messages = popped.messages;
  await expectStatus(api, (h) => ackBatch(h, {
    acknowledgments: messages.map((m) => ({ transactionId: m.transactionId, partitionId: m.partitionId, leaseId: popped.leaseId, status, ...(error === undefined ? {} : { error }) })),
    ...(group === null ? {} : { consumerGroup: group }),
  }));
  return messages.length;
}

const order = (customer: number, n: number) => ({
  orderId: `ord-${customer}-${String(n).padStart(4, '0')}`, customer: `cust-${customer}`, currency: 'EUR',
  total: Number((19.9 + n * 3.35).toFixed(2)), items: [{ sku: `SKU-${100 + (n % 7)}`, qty: 1 + (n % 3) }],
});

/** Seeds the installation through `api` (broker A) and `other` (broker B). */
export async function seedInstallation(api: ApiRequester, other: ApiRequester): Promise<void> {
  const configure = async (queue: string, namespace: string, task: string, options: Parameters<typeof configureQueue>[1]['options'] = {}): Promise<void> => {
    await expectStatus(api, (h) => configureQueue(h, { queue, namespace, task, options }));
  };
  await configure(QUEUES.orders, 'shop', 'orders', { leaseTime: 60, retryLimit: 3, deadLetterQueue: true });
  await configure(QUEUES.payments, 'shop', 'payments', { leaseTime: 30, retryLimit: 1, deadLetterQueue: true });
  await configure(QUEUES.emails, 'shop', 'emails');
  await configure(QUEUES.events, 'analytics', 'events');
  await configure(QUEUES.audit, 'ops', 'audit');

  for (let c = 1; c <= 6; c += 1) await push(api, QUEUES.orders, `customer-${c}`, Array.from({ length: 20 }, (_, i) => order(c, i + 1)));
  for (let c = 1; c <= 6; c += 1) await consume(api, QUEUES.orders, `customer-${c}`, 'billing', c <= 4 ? 20 : 5);
  for (let c = 1; c <= 3; c += 1) await consume(api, QUEUES.orders, `customer-${c}`, 'shipping', 12);
  await consume(api, QUEUES.orders, 'customer-1', null, 20);

  await push(api, QUEUES.payments, 'Default', Array.from({ length: 12 }, (_, i) => ({ paymentId: `pay-${i + 1}`, order: `ord-1-${String(i + 1).padStart(4, '0')}`, amount: 42.5 + i, method: i % 2 === 0 ? 'card' : 'sepa' })));
  await consume(api, QUEUES.payments, 'Default', null, 3, 'dlq', 'card declined: insufficient funds');
  await consume(api, QUEUES.payments, 'Default', null, 2, 'failed', 'gateway timeout');
  await consume(api, QUEUES.payments, 'Default', null, 4);

  await push(api, QUEUES.emails, 'Default', Array.from({ length: 8 }, (_, i) => ({ to: `customer${i + 1}@example.com`, template: 'order-confirmation' })));

  for (const region of ['eu-west', 'us-east', 'ap-south']) {
    await push(other, QUEUES.events, region, Array.from({ length: 100 }, (_, i) => ({ event: i % 5 === 0 ? 'checkout' : 'page_view', region, session: `s-${region}-${i % 17}`, ts: 1_700_000_000 + i })));
    await consume(other, QUEUES.events, region, null, 70);
  }

  await push(api, QUEUES.audit, 'Default', Array.from({ length: 39 }, (_, i) => ({ actor: i % 3 === 0 ? 'admin@example.com' : 'svc-billing', action: 'update', target: `order/${i}` })));
  await push(api, QUEUES.audit, 'Default', [{ actor: 'svc-export', action: 'export', blob: 'x'.repeat(LARGE_PAYLOAD_BYTES - 60) }]);

  const detail = await listMessages(api, { queue: QUEUES.orders, partition: 'customer-1', limit: 1 });
  const first = detail.messages[0]!;
  await expectStatus(api, (h) => recordTrace(h, { transactionId: first.transactionId, partitionId: first.partitionId, data: { text: 'charged card' }, eventType: 'step', traceNames: ['order-flow'] }), 201);
}
