/**
 * The in-process registry of parked pops (src/core/wake-bus.ts), docs/api.md 5.15.4: a commit on a queue wakes the
 * queue-scoped pops of that queue and the discovery pops whose namespace/task filter matches the queue.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WakeBus, type WakeTarget } from '../../src/core/wake-bus.js';

/** Registers a waiter that counts its wakes. */
function waiter(bus: WakeBus, target: WakeTarget): { wakes: () => number; unregister: () => void } {
  let wakes = 0;
  const unregister = bus.register(target, () => {
    wakes += 1;
  });
  return { wakes: () => wakes, unregister };
}

const signal = (queue: string, namespace: string | null, task: string | null) => ({ queue, namespace, task });

describe('queue-scoped waiters', () => {
  test('a signal wakes every waiter of that queue, once per signal, and no other queue', () => {
    const bus = new WakeBus();
    const a1 = waiter(bus, { kind: 'queue', queue: 'orders.created' });
    const a2 = waiter(bus, { kind: 'queue', queue: 'orders.created' });
    const b = waiter(bus, { kind: 'queue', queue: 'orders.shipped' });
    bus.signal(signal('orders.created', 'orders', 'created'));
    assert.deepEqual([a1.wakes(), a2.wakes(), b.wakes()], [1, 1, 0]);
    bus.signal(signal('orders.created', 'orders', 'created'));
    assert.deepEqual([a1.wakes(), a2.wakes(), b.wakes()], [2, 2, 0]);
    bus.signal(signal('orders.shipped', 'orders', 'shipped'));
    assert.deepEqual([a1.wakes(), a2.wakes(), b.wakes()], [2, 2, 1]);
  });

  test('queue names are compared exactly (case-sensitive, no prefix match)', () => {
    const bus = new WakeBus();
    const w = waiter(bus, { kind: 'queue', queue: 'Orders' });
    bus.signal(signal('orders', 'orders', ''));
    bus.signal(signal('Orders.x', 'Orders', 'x'));
    bus.signal(signal('Order', 'Order', ''));
    assert.equal(w.wakes(), 0);
    bus.signal(signal('Orders', 'Orders', ''));
    assert.equal(w.wakes(), 1);
  });

  test('an unregistered waiter is not woken; the others still are', () => {
    const bus = new WakeBus();
    const a = waiter(bus, { kind: 'queue', queue: 'q' });
    const b = waiter(bus, { kind: 'queue', queue: 'q' });
    a.unregister();
    bus.signal(signal('q', 'q', ''));
    assert.deepEqual([a.wakes(), b.wakes()], [0, 1]);
  });

  test('a waiter may unregister itself while being woken, without disturbing the others', () => {
    const bus = new WakeBus();
    let selfWakes = 0;
    const unregisterSelf: { fn: () => void } = { fn: () => undefined };
    unregisterSelf.fn = bus.register({ kind: 'queue', queue: 'q' }, () => {
      selfWakes += 1;
      unregisterSelf.fn();
    });
    const other = waiter(bus, { kind: 'queue', queue: 'q' });
    bus.signal(signal('q', 'q', ''));
    bus.signal(signal('q', 'q', ''));
    assert.equal(selfWakes, 1);
    assert.equal(other.wakes(), 2);
    assert.equal(bus.parked, 1);
  });
});

describe('discovery waiters filter by namespace and task', () => {
  test('namespace filter', () => {
    const bus = new WakeBus();
    const w = waiter(bus, { kind: 'discovery', namespace: 'billing', task: null });
    bus.signal(signal('orders.created', 'orders', 'created'));
    assert.equal(w.wakes(), 0);
    bus.signal(signal('billing.invoices', 'billing', 'invoices'));
    bus.signal(signal('billing', 'billing', ''));
    assert.equal(w.wakes(), 2);
  });

  test('task filter', () => {
    const bus = new WakeBus();
    const w = waiter(bus, { kind: 'discovery', namespace: null, task: 'created' });
    bus.signal(signal('orders.shipped', 'orders', 'shipped'));
    assert.equal(w.wakes(), 0);
    bus.signal(signal('orders.created', 'orders', 'created'));
    bus.signal(signal('users.created.v2', 'users', 'created'));
    assert.equal(w.wakes(), 2);
  });

  test('namespace and task together must both match', () => {
    const bus = new WakeBus();
    const w = waiter(bus, { kind: 'discovery', namespace: 'orders', task: 'created' });
    bus.signal(signal('orders.shipped', 'orders', 'shipped'));
    bus.signal(signal('users.created', 'users', 'created'));
    assert.equal(w.wakes(), 0);
    bus.signal(signal('orders.created', 'orders', 'created'));
    assert.equal(w.wakes(), 1);
  });

  test('one signal wakes the matching queue waiters and the matching discovery waiters together', () => {
    const bus = new WakeBus();
    const queue = waiter(bus, { kind: 'queue', queue: 'orders.created' });
    const byNamespace = waiter(bus, { kind: 'discovery', namespace: 'orders', task: null });
    const byTask = waiter(bus, { kind: 'discovery', namespace: null, task: 'created' });
    const unrelated = waiter(bus, { kind: 'discovery', namespace: 'billing', task: null });
    bus.signal(signal('orders.created', 'orders', 'created'));
    assert.deepEqual([queue.wakes(), byNamespace.wakes(), byTask.wakes(), unrelated.wakes()], [1, 1, 1, 0]);
  });

  test('a discovery waiter is not woken through a queue named like its namespace', () => {
    const bus = new WakeBus();
    const w = waiter(bus, { kind: 'discovery', namespace: 'orders', task: null });
    bus.signal(signal('billing.orders', 'billing', 'orders'));
    assert.equal(w.wakes(), 0);
  });
});

describe('wakeAll', () => {
  test('wakes every waiter, queue-scoped and discovery', () => {
    const bus = new WakeBus();
    const ws = [
      waiter(bus, { kind: 'queue', queue: 'a' }),
      waiter(bus, { kind: 'queue', queue: 'b' }),
      waiter(bus, { kind: 'discovery', namespace: 'x', task: null }),
    ];
    bus.wakeAll();
    assert.deepEqual(ws.map((w) => w.wakes()), [1, 1, 1]);
  });
});

describe('parked counts', () => {
  test('register and unregister move the total and the per-queue counts', () => {
    const bus = new WakeBus();
    assert.equal(bus.parked, 0);
    assert.deepEqual(bus.parkedByQueue(), new Map());

    const a1 = waiter(bus, { kind: 'queue', queue: 'a' });
    const a2 = waiter(bus, { kind: 'queue', queue: 'a' });
    const b = waiter(bus, { kind: 'queue', queue: 'b' });
    const d1 = waiter(bus, { kind: 'discovery', namespace: 'x', task: null });
    const d2 = waiter(bus, { kind: 'discovery', namespace: null, task: 'y' });
    assert.equal(bus.parked, 5);
    assert.deepEqual(bus.parkedByQueue(), new Map([['a', 2], ['b', 1], ['*discovery*', 2]]));

    a1.unregister();
    d1.unregister();
    assert.equal(bus.parked, 3);
    assert.deepEqual(bus.parkedByQueue(), new Map([['a', 1], ['b', 1], ['*discovery*', 1]]));

    a2.unregister();
    b.unregister();
    d2.unregister();
    assert.equal(bus.parked, 0);
    assert.deepEqual(bus.parkedByQueue(), new Map());
  });

  test('unregistering twice counts once', () => {
    const bus = new WakeBus();
    const a = waiter(bus, { kind: 'queue', queue: 'a' });
    const b = waiter(bus, { kind: 'queue', queue: 'a' });
    a.unregister();
    a.unregister();
    assert.equal(bus.parked, 1);
    assert.deepEqual(bus.parkedByQueue(), new Map([['a', 1]]));
    b.unregister();
    assert.equal(bus.parked, 0);
  });

  test('a stale unregister after the queue emptied and refilled does not remove the new waiter', () => {
    const bus = new WakeBus();
    const old = waiter(bus, { kind: 'queue', queue: 'a' });
    old.unregister();
    const fresh = waiter(bus, { kind: 'queue', queue: 'a' });
    old.unregister();
    assert.equal(bus.parked, 1);
    bus.signal(signal('a', 'a', ''));
    assert.equal(fresh.wakes(), 1);
  });
});
