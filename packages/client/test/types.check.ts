/**
 * Type-level test, compiled (never run) by `npm run typecheck` (tsc -p packages/client/test): typed payloads
 * flow from `queue<T>()` to `push` inputs and `msg.data`, and misuse does not compile. Every
 * `@ts-expect-error` line makes tsc fail if that line ever stops being an error, so this test can fail.
 */
import type pg from 'pg';
import { openTelemetry } from '../src/otel/index.js';
import DefaultQueen, { Queen, QueenError, QUEUE_MODE, CLIENT_DEFAULTS, QUEUE_DEFAULTS, type AckResponse, type Message, type PushResultItem, type RenewResult } from '../src/index.js';

interface Order {
  orderId: string;
  amountCents: number;
}

export async function typed(queen: Queen): Promise<void> {
  const orders = queen.queue<Order>('orders');
  await orders.push([{ data: { orderId: 'o1', amountCents: 990 } }]);
  await orders.push({ orderId: 'o2', amountCents: 10 });
  await orders.push({ payload: { orderId: 'o3', amountCents: 1 }, transactionId: 't', traceId: 'u' });

  const popped: Message<Order>[] = await orders.pop();
  const n: number = popped[0]!.data.amountCents;
  const s: string = popped[0]!.data.orderId;

  await queen.queue<Order>('orders').each().consume(async (msg) => {
    const cents: number = msg.data.amountCents;
    return cents;
  });
  const summary: { processed: number; failed: number } = await queen.queue<Order>('orders').consume(async (msgs) => {
    const first: number = msgs[0]!.data.amountCents;
    return first;
  });

  const results: PushResultItem[] = await queen.queue<Order>('orders').push([{ data: { orderId: 'o', amountCents: 1 } }]);
  const first = results[0]!;
  if (first.status === 'queued') {
    const id: string = first.message_id;
    void id;
  }
  const buffered = await queen.queue<Order>('orders').buffer({ messageCount: 10 }).push({ orderId: 'b', amountCents: 2 });
  const flag: true = buffered.buffered;
  const count: number = buffered.count;

  // The outbox: a pg Client, a pool's client, or anything with query(text, values), typed like HTTP pushes,
  // even on a buffering builder.
  const viaClient: PushResultItem[] = await orders.push([{ data: { orderId: 'o', amountCents: 1 } }], { db: {} as pg.Client });
  const viaPoolClient: PushResultItem[] = await queen.queue<Order>('orders').buffer().push({ orderId: 'p', amountCents: 1 }, { db: {} as pg.PoolClient });
  const viaAnything: PushResultItem[] = await orders.push({ orderId: 'a', amountCents: 1 }, { db: { query: async () => ({ rows: [] }) } });
  void [viaClient, viaPoolClient, viaAnything];
  // @ts-expect-error the db client needs a query(text, values) method
  await orders.push({ orderId: 'x', amountCents: 1 }, { db: { execute: async () => ({ rows: [] }) } });
  // @ts-expect-error a push through the database is typed by the queue's payload too
  await orders.push({ orderId: 'x' }, { db: {} as pg.Client });

  const ack: AckResponse = await queen.ack(popped, 'completed', { group: 'g' });
  const renewed: RenewResult = await queen.renew(popped[0]!);
  const renewedMany: RenewResult[] = await queen.renew(popped);
  const code: QueenError['code'] = 'PUSH_FAILED';
  const mode: '__QUEUE_MODE__' = QUEUE_MODE as '__QUEUE_MODE__';
  const leaseTime: number = QUEUE_DEFAULTS.leaseTime + CLIENT_DEFAULTS.timeoutMillis;
  void [n, s, summary, flag, count, ack, renewed, renewedMany, code, mode, leaseTime, new DefaultQueen('http://x')];

  // @ts-expect-error wrong payload type in push
  await orders.push([{ data: { orderId: 'o', amountCents: 'ninety' } }]);
  // @ts-expect-error a pushed object must be a whole Order
  await orders.push({ orderId: 'o' });
  // @ts-expect-error after each() the handler receives one message, not an array
  await queen.queue<Order>('orders').each().consume(async (msgs: Message<Order>[]) => msgs.length);
  // @ts-expect-error without each() the handler receives an array
  await queen.queue<Order>('orders').consume(async (msg: Message<Order>) => msg.data);
  // @ts-expect-error msg.data is an Order: no such field
  void popped[0]!.data.amount;
  // @ts-expect-error messages are read-only
  popped[0]!.data = { orderId: 'x', amountCents: 1 };
  // @ts-expect-error unknown queue option
  orders.config({ leaseTimee: 5 });
  // @ts-expect-error queue option of the wrong type
  orders.config({ retryLimit: '3' });
  // @ts-expect-error unknown client option
  void new Queen({ url: 'http://x', timeout: 5 });
  // @ts-expect-error unknown load-balancing strategy
  void new Queen({ url: 'http://x', loadBalancingStrategy: 'random' });
  // Tracing hooks from the optional subpath; a message's W3C context is optional text.
  void new Queen({ url: 'http://x', telemetry: openTelemetry() });
  const parent: string | undefined = popped[0]!.traceparent;
  void parent;
  // @ts-expect-error telemetry is the hooks object, not a flag
  void new Queen({ url: 'http://x', telemetry: true });
  // @ts-expect-error wrong ack status string
  await queen.ack(popped[0]!, 'done');
  // @ts-expect-error unknown subscription mode
  orders.subscriptionMode('latest');
  // @ts-expect-error a buffered push resolves with {buffered, count}, not the results array
  void (await queen.queue<Order>('orders').buffer().push({ orderId: 'b', amountCents: 2 })).length;
  // @ts-expect-error onSuccess of a consume after each() receives one message
  await queen.queue<Order>('orders').each().consume(() => undefined).onSuccess((msgs: Message<Order>[]) => msgs);
}
