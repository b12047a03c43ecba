/**
 * Rate-limiter gate factories (docs/streams-sdk.md): functions for `.gate(fn)` whose state lives in the gate's
 * per-key state. The gate runtime gives the back-pressure (a deny keeps the lease, so the sustainable rate per
 * partition is `min(refill, capacity / leaseSeconds)`); these only decide what each message costs.
 */
import type { GateContext } from './types.js';

/** Persistent state of {@link tokenBucketGate}. */
export interface TokenBucketState {
  tokens: number;
  lastRefillAt: number;
  allowedTotal: number;
  consumedTotal: number;
}

/** Persistent state of {@link slidingWindowGate}. */
export interface SlidingWindowState {
  window: number;
  currentCount: number;
  previousCount: number;
}

function costOf<V>(costFn: (value: V) => number, value: V): number {
  const cost = costFn(value);
  return typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : 1;
}

/**
 * A token bucket: `capacity` tokens, refilled at `refillPerSec` (capped at capacity); a message of cost `c` passes
 * when at least `c` tokens are left. A bad cost counts as 1; cost 0 answers `allowZeroCost` and takes nothing.
 */
export function tokenBucketGate<V = unknown>(options: { capacity: number; refillPerSec: number; costFn?: (value: V) => number; allowZeroCost?: boolean }) {
  const { capacity, refillPerSec, costFn = () => 1, allowZeroCost = true } = options ?? ({} as never);
  if (!Number.isFinite(capacity) || capacity <= 0) throw new Error('tokenBucketGate: capacity must be a positive number');
  if (!Number.isFinite(refillPerSec) || refillPerSec <= 0) throw new Error('tokenBucketGate: refillPerSec must be a positive number');
  if (typeof costFn !== 'function') throw new Error('tokenBucketGate: costFn must be a function');
  return function tokenBucket(value: V, ctx: GateContext<TokenBucketState>): boolean {
    const now = ctx.streamTimeMs;
    const s = ctx.state;
    const last = typeof s.lastRefillAt === 'number' ? s.lastRefillAt : now;
    const tokens = typeof s.tokens === 'number' ? s.tokens : capacity;
    s.tokens = Math.min(capacity, tokens + (Math.max(0, now - last) / 1000) * refillPerSec);
    s.lastRefillAt = now;
    const cost = costOf(costFn, value);
    if (cost === 0) return allowZeroCost;
    if (s.tokens < cost) return false;
    s.tokens -= cost;
    s.allowedTotal = (s.allowedTotal ?? 0) + 1;
    s.consumedTotal = (s.consumedTotal ?? 0) + cost;
    return true;
  };
}

/**
 * At most `limit` (cost units) per `windowSec`, estimated from two fixed buckets: passes when
 * `previous·(1 − elapsedFraction) + current + cost ≤ limit`.
 */
export function slidingWindowGate<V = unknown>(options: { limit: number; windowSec: number; costFn?: (value: V) => number }) {
  const { limit, windowSec, costFn = () => 1 } = options ?? ({} as never);
  if (!Number.isFinite(limit) || limit <= 0) throw new Error('slidingWindowGate: limit must be a positive number');
  if (!Number.isFinite(windowSec) || windowSec <= 0) throw new Error('slidingWindowGate: windowSec must be a positive number');
  const windowMs = windowSec * 1000;
  return function slidingWindow(value: V, ctx: GateContext<SlidingWindowState>): boolean {
    const now = ctx.streamTimeMs;
    const current = Math.floor(now / windowMs);
    const elapsed = (now % windowMs) / windowMs;
    const s = ctx.state;
    if (s.window !== current) {
      s.previousCount = s.window === current - 1 ? (s.currentCount ?? 0) : 0;
      s.currentCount = 0;
      s.window = current;
    }
    const estimated = (s.previousCount ?? 0) * (1 - elapsed) + (s.currentCount ?? 0);
    const cost = costOf(costFn, value);
    if (estimated + cost > limit) return false;
    s.currentCount = (s.currentCount ?? 0) + cost;
    return true;
  };
}
