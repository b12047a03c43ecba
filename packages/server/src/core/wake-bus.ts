/**
 * Parked long-polls and the signals that wake them (docs/api.md 5.15).
 *
 * A parked pop registers a waiter: queue-scoped pops by queue name, discovery pops by their namespace/task
 * filter. A write or a lease release on a queue wakes every waiter that matches it, in this process at once
 * and in other processes through the LISTEN/NOTIFY bridge. Waiters hold no database connection.
 */

/** Which writes wake a parked pop. */
export type WakeTarget = { kind: 'queue'; queue: string } | { kind: 'discovery'; namespace: string | null; task: string | null };

/** What happened: a commit touched this queue. */
export interface QueueSignal {
  queue: string;
  /** Namespace and task of the queue, when known (needed to wake discovery pops). */
  namespace: string | null;
  task: string | null;
}

interface Waiter {
  target: WakeTarget;
  wake: () => void;
}

/** The in-process registry of parked pops. */
export class WakeBus {
  private readonly byQueue = new Map<string, Set<Waiter>>();
  private readonly discovery = new Set<Waiter>();
  private parkedCount = 0;

  /** Number of pops parked right now. */
  get parked(): number {
    return this.parkedCount;
  }

  /** Parked pops by queue name (discovery pops under `*discovery*`), for metrics. */
  parkedByQueue(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const [queue, waiters] of this.byQueue) counts.set(queue, waiters.size);
    if (this.discovery.size > 0) counts.set('*discovery*', this.discovery.size);
    return counts;
  }

  /** Registers a waiter; the returned function unregisters it. */
  register(target: WakeTarget, wake: () => void): () => void {
    const waiter: Waiter = { target, wake };
    let set: Set<Waiter>;
    if (target.kind === 'queue') {
      set = this.byQueue.get(target.queue) ?? new Set();
      this.byQueue.set(target.queue, set);
    } else {
      set = this.discovery;
    }
    set.add(waiter);
    this.parkedCount += 1;
    return () => {
      if (!set.delete(waiter)) return;
      this.parkedCount -= 1;
      if (target.kind === 'queue' && set.size === 0) this.byQueue.delete(target.queue);
    };
  }

  /** Wakes every waiter interested in a commit on this queue. */
  signal(signal: QueueSignal): void {
    const waiters = this.byQueue.get(signal.queue);
    if (waiters) for (const waiter of [...waiters]) waiter.wake();
    if (this.discovery.size === 0) return;
    for (const waiter of [...this.discovery]) {
      const target = waiter.target;
      if (target.kind !== 'discovery') continue;
      if (signal.namespace === null && signal.task === null) {
        waiter.wake(); // scope unknown: a spurious re-check is cheaper than a missed wake
        continue;
      }
      if (target.namespace !== null && target.namespace !== signal.namespace) continue;
      if (target.task !== null && target.task !== signal.task) continue;
      waiter.wake();
    }
  }

  /** Wakes every waiter (shutdown, maintenance changes). */
  wakeAll(): void {
    for (const waiters of this.byQueue.values()) for (const waiter of [...waiters]) waiter.wake();
    for (const waiter of [...this.discovery]) waiter.wake();
  }
}
