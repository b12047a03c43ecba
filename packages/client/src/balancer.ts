/**
 * Load balancing over several broker URLs (docs/client.md). Health is learned only from request outcomes: a
 * URL that failed is skipped for `healthRetryAfterMillis`, and when every URL is marked unhealthy all are
 * tried anyway (better a probably-down broker than none). `order()` returns the URLs to try for one request,
 * the preferred one first, so failover is simply "the next one in the list".
 *
 * Affinity hashes a key (queue/partition/group) onto a ring with virtual nodes, so every consumer of the same
 * key talks to the same broker and its long polls are woken in-process, and removing a broker only moves
 * the keys it owned.
 */
import type { LoadBalancingStrategy } from './types.js';

const encoder = new TextEncoder();

/** 32-bit FNV-1a of the UTF-8 bytes of `text`. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of encoder.encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Settings of a {@link LoadBalancer}. */
export interface BalancerOptions {
  strategy: LoadBalancingStrategy;
  ringSize: number;
  healthRetryAfterMillis: number;
  /** Injected for tests; defaults to Math.random. */
  random?: () => number;
  now?: () => number;
}

/** Chooses the broker URL order of each request and remembers which URLs recently failed. */
export class LoadBalancer {
  readonly urls: readonly string[];
  private readonly ring: Array<{ hash: number; url: string }>;
  private readonly unhealthyUntil = new Map<string, number>();
  private next = 0;
  private session: number;

  constructor(urls: readonly string[], private readonly options: BalancerOptions) {
    this.urls = urls;
    this.session = Math.floor((options.random ?? Math.random)() * urls.length) % urls.length;
    this.ring = [];
    if (options.strategy === 'affinity') {
      for (const url of urls) {
        for (let i = 0; i < options.ringSize; i++) this.ring.push({ hash: fnv1a(`${url}#${i}`), url });
      }
      this.ring.sort((a, b) => a.hash - b.hash || (a.url < b.url ? -1 : 1));
    }
  }

  /** The URLs to try for one request, preferred first: healthy ones, or every URL when none is healthy. */
  order(affinityKey?: string): string[] {
    const candidates = this.preference(affinityKey);
    const healthy = candidates.filter((url) => this.isHealthy(url));
    return healthy.length > 0 ? healthy : candidates;
  }

  /** Marks `url` as failed: skipped for `healthRetryAfterMillis`. */
  markFailed(url: string): void {
    if (this.urls.length > 1) this.unhealthyUntil.set(url, this.now() + this.options.healthRetryAfterMillis);
  }

  /** Marks `url` as working again. */
  markHealthy(url: string): void {
    this.unhealthyUntil.delete(url);
  }

  /** True unless `url` failed within the last `healthRetryAfterMillis`. */
  isHealthy(url: string): boolean {
    const until = this.unhealthyUntil.get(url);
    return until === undefined || until <= this.now();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private preference(key: string | undefined): string[] {
    if (this.urls.length === 1) return [...this.urls];
    if (this.options.strategy === 'affinity' && key !== undefined) return this.ringOrder(key);
    if (this.options.strategy === 'session') {
      // Keep the session URL while it is healthy; otherwise move the session to the next healthy one.
      if (!this.isHealthy(this.urls[this.session]!)) {
        for (let step = 1; step < this.urls.length; step++) {
          const candidate = (this.session + step) % this.urls.length;
          if (this.isHealthy(this.urls[candidate]!)) {
            this.session = candidate;
            break;
          }
        }
      }
      return this.rotate(this.session);
    }
    // Round-robin: advance to the next healthy URL per request.
    for (let step = 0; step < this.urls.length; step++) {
      const candidate = (this.next + step) % this.urls.length;
      if (this.isHealthy(this.urls[candidate]!)) {
        this.next = candidate + 1;
        return this.rotate(candidate);
      }
    }
    const start = this.next % this.urls.length;
    this.next = start + 1;
    return this.rotate(start);
  }

  private rotate(start: number): string[] {
    return this.urls.map((_, i) => this.urls[(start + i) % this.urls.length]!);
  }

  /** Distinct URLs met walking the ring clockwise from the key's hash. */
  private ringOrder(key: string): string[] {
    const hash = fnv1a(key);
    let low = 0;
    let high = this.ring.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.ring[mid]!.hash < hash) low = mid + 1;
      else high = mid;
    }
    const seen: string[] = [];
    for (let i = 0; i < this.ring.length && seen.length < this.urls.length; i++) {
      const url = this.ring[(low + i) % this.ring.length]!.url;
      if (!seen.includes(url)) seen.push(url);
    }
    return seen;
  }
}
