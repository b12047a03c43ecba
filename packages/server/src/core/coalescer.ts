/**
 * Group commit for writes: concurrent submissions are merged into one call of `run` (one SQL transaction),
 * and each submitter gets back the results of its own items.
 *
 * At most `maxInFlight` calls run at once. A submission arriving while a slot is free is flushed on the next
 * turn of the event loop (so requests that arrived together share a commit); while every slot is busy,
 * submissions accumulate and the next free slot takes them all, up to `maxItems` items. Latency stays at
 * one round trip when idle, and batches grow by themselves under load. A submission is never split.
 */

interface Job<I, R> {
  items: I[];
  resolve: (results: R[]) => void;
  reject: (error: unknown) => void;
}

/** Tuning of a coalescer. */
export interface CoalescerOptions<I> {
  maxInFlight: number;
  maxItems: number;
  /** When a merged call fails with such an error, each submission is retried alone (one bad request fails alone). */
  isolateOnError: (error: unknown) => boolean;
  /**
   * When given, items of different submissions with the same key never share a call: a submission whose
   * key is already in the call being assembled waits for the next one (submissions stay in arrival order).
   * For operations whose rules read "the state at the start of the call", merging would change the answer.
   */
  key?: (item: I) => string;
}

/** Merges concurrent submissions into few calls. */
export class Coalescer<I, R> {
  private pending: Job<I, R>[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<R[]>,
    private readonly options: CoalescerOptions<I>,
  ) {}

  /** Submits items; resolves with one result per item, in order, once they are committed. */
  submit(items: I[]): Promise<R[]> {
    if (items.length === 0) return Promise.resolve([]);
    return new Promise<R[]>((resolve, reject) => {
      this.pending.push({ items, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight || this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.options.maxInFlight && this.pending.length > 0) {
      const batch: Job<I, R>[] = [];
      const keys = new Set<string>();
      let count = 0;
      while (this.pending.length > 0) {
        const next = this.pending[0]!;
        const nextKeys = this.keysOf(next);
        if (batch.length > 0 && (count + next.items.length > this.options.maxItems || nextKeys.some((k) => keys.has(k)))) break;
        batch.push(this.pending.shift()!);
        count += next.items.length;
        for (const k of nextKeys) keys.add(k);
      }
      this.inFlight += 1;
      void this.execute(batch).finally(() => {
        this.inFlight -= 1;
        this.schedule();
      });
    }
  }

  /** The keys of a submission's items (none without the `key` option), computed once per submission. */
  private keysOf(job: Job<I, R>): string[] {
    const key = this.options.key;
    return key === undefined ? [] : job.items.map(key);
  }

  private async execute(batch: Job<I, R>[]): Promise<void> {
    try {
      const results = await this.run(batch.flatMap((job) => job.items));
      let offset = 0;
      for (const job of batch) {
        job.resolve(results.slice(offset, offset + job.items.length));
        offset += job.items.length;
      }
    } catch (error) {
      if (batch.length > 1 && this.options.isolateOnError(error)) {
        await Promise.all(batch.map((job) => this.run(job.items).then(job.resolve, job.reject)));
      } else {
        for (const job of batch) job.reject(error);
      }
    }
  }
}
