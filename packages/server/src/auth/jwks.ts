/**
 * A remote JSON Web Key Set (docs/api.md 9.7 rule 5): fetched with a timeout, cached, refreshed every interval and
 * on an unknown `kid` at most once per cooldown (30 s).
 *
 * Why not jose's `createRemoteJWKSet`: its timeout and unknown-kid cooldown match, but (1) a refresh due by age
 * is awaited by the request that notices it, and when that fetch fails the request fails although the previous
 * keys are still in memory; (2) while the cache is stale or empty, every request starts a new fetch (only
 * concurrent ones share it), so an unreachable JWKS makes each request wait up to the timeout. Here the
 * previous keys stay in use until a refresh succeeds, a refresh due by age runs in the background, and a fetch
 * for an unknown kid, a first load or a retry after a failed fetch happens at most once per cooldown.
 * jose's `createLocalJWKSet` still does the key selection (kid, alg, kty, use, key_ops) and the import.
 */
import { createLocalJWKSet, type CryptoKey, type JWSHeaderParameters, type FlattenedJWSInput } from 'jose';
import { errors as jose } from 'jose';

/** A key resolver in the shape jose's `jwtVerify` accepts. */
export type KeyResolver = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;

/** Timing of a remote key set; `now` is injectable for tests. */
export interface JwksOptions {
  timeoutMs: number;
  refreshIntervalMs: number;
  /** Minimum time between two fetch attempts (default 30 s). */
  cooldownMs?: number;
  /** Told after every successful fetch (the verifier forgets the tokens it verified with the previous set). */
  onReload?: () => void;
  /** Told about background refreshes that failed (the previous keys stay in use). */
  onRefreshError?: (error: Error) => void;
  now?: () => number;
}

/** Raised when the key set cannot be fetched or parsed; its message is the `<detail>` of the wire error. */
export class JwksFetchError extends Error {}

/** Fetches and parses one key set. */
async function fetchKeySet(url: URL, timeoutMs: number): Promise<ReturnType<typeof createLocalJWKSet>> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json, application/jwk-set+json' } });
  } catch (error) {
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
      throw new JwksFetchError(`JWKS request timed out after ${timeoutMs} ms`);
    }
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    throw new JwksFetchError(`JWKS fetch failed: ${cause}`);
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new JwksFetchError(`JWKS endpoint answered HTTP ${response.status}`);
  }
  let json: unknown;
  try {
    json = await response.json();
  } catch (error) {
    throw new JwksFetchError(error instanceof Error && error.name === 'TimeoutError'
      ? `JWKS request timed out after ${timeoutMs} ms`
      : 'JWKS response is not valid JSON');
  }
  try {
    return createLocalJWKSet(json as Parameters<typeof createLocalJWKSet>[0]);
  } catch (error) {
    throw new JwksFetchError(error instanceof Error ? error.message : String(error));
  }
}

/** One remote key set, shared by every request of the process. */
export class RemoteKeySet {
  private local: ReturnType<typeof createLocalJWKSet> | null = null;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private attemptedAt = Number.NEGATIVE_INFINITY;
  private lastError: Error | null = null;
  private pending: Promise<void> | null = null;
  private readonly cooldownMs: number;
  private readonly now: () => number;
  /** Successful and failed fetches so far (for tests and logs). */
  fetches = 0;

  constructor(private readonly url: URL, private readonly options: JwksOptions) {
    this.cooldownMs = options.cooldownMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /** The resolver to hand to `jwtVerify`. */
  readonly resolve: KeyResolver = async (header, token) => {
    const now = this.now();
    if (this.local === null) {
      if (this.pending !== null || now - this.attemptedAt >= this.cooldownMs) await this.reload();
    } else {
      this.refreshIfDue();
    }
    try {
      return await this.keys()(header, token);
    } catch (error) {
      if (!(error instanceof jose.JWKSNoMatchingKey)) throw error;
      if (this.pending === null && this.now() - this.attemptedAt < this.cooldownMs) throw error;
      await this.reload();
      return this.keys()(header, token);
    }
  };

  /**
   * Starts a background refresh when the set is older than the refresh interval (after a failed refresh, the
   * retry waits for the cooldown, or the interval if shorter). Cheap: callers may run it on every request.
   */
  refreshIfDue(): void {
    const now = this.now();
    if (this.local === null || this.pending !== null || now - this.fetchedAt < this.options.refreshIntervalMs) return;
    if (now - this.attemptedAt < Math.min(this.cooldownMs, this.options.refreshIntervalMs)) return;
    this.reload().catch((error: unknown) => this.options.onRefreshError?.(error as Error));
  }

  /** The cached set, or the error of the last failed fetch. */
  private keys(): ReturnType<typeof createLocalJWKSet> {
    if (this.local === null) throw this.lastError ?? new JwksFetchError('JWKS not loaded');
    return this.local;
  }

  /** Fetches the set now (concurrent callers share one fetch); on failure the previous keys stay. */
  reload(): Promise<void> {
    this.pending ??= (async () => {
      this.attemptedAt = this.now();
      this.fetches += 1;
      try {
        this.local = await fetchKeySet(this.url, this.options.timeoutMs);
        this.fetchedAt = this.now();
        this.lastError = null;
        this.options.onReload?.();
      } catch (error) {
        this.lastError = error as Error;
        throw error;
      } finally {
        this.pending = null;
      }
    })();
    return this.pending;
  }
}
