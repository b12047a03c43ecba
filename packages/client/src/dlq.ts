/** The DLQ reader of a queue (docs/client.md): every filter is sent, `total` is returned, failures reject. */
import { listDlq } from './api/messages.js';
import type { Transport } from './http.js';
import type { DlqPage } from './types.js';

/** Builds and runs a DLQ listing (operation `listDlq`) for one queue. */
export class DLQBuilder<T> {
  private filters: { partition?: string; limit: number; offset: number; from?: string; to?: string } = { limit: 100, offset: 0 };

  constructor(
    private readonly transport: Transport,
    private readonly queue: string | undefined,
    private readonly group: string | undefined,
  ) {}

  /** Only entries of this partition. */
  partition(name: string): this {
    this.filters.partition = name;
    return this;
  }

  /** Page size (default 100, the broker caps it at 1000). */
  limit(n: number): this {
    this.filters.limit = n;
    return this;
  }

  /** Entries to skip (default 0). */
  offset(n: number): this {
    this.filters.offset = n;
    return this;
  }

  /** Failures at or after `ts`. */
  from(ts: string | Date): this {
    this.filters.from = ts instanceof Date ? ts.toISOString() : ts;
    return this;
  }

  /** Failures at or before `ts`. */
  to(ts: string | Date): this {
    this.filters.to = ts instanceof Date ? ts.toISOString() : ts;
    return this;
  }

  /** One page of entries, newest failure first. */
  async get(): Promise<DlqPage<T>> {
    return listDlq<T>(this.transport, { queue: this.queue, consumerGroup: this.group, ...this.filters });
  }
}
