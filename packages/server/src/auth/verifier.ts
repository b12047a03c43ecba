/**
 * Token verification (docs/api.md 9.7 rules 3-5): picks the verification by the token header's `alg`, checks the
 * signature, `exp`/`nbf` with leeway, `iss` and `aud`, and returns the claims.
 *
 * The algorithm check is ours, before jose runs, so that a mismatch has its exact text. Keys are node
 * KeyObjects built once at start-up: jose caches the WebCrypto key it derives from each KeyObject per
 * algorithm, so the hot path does no key import. Clients send the same token on every request, and a jose
 * verification costs tens of microseconds of CPU (WebCrypto is asynchronous even for HMAC), so tokens that
 * verified are remembered for at most a minute, and never past their `exp` plus the leeway: a cached token
 * expires exactly when a fresh verification would refuse it, and every JWKS fetch empties the cache so that a
 * key removed from the set stops working at the refresh, as without the cache. A configuration that can never verify anything (an RS256 or
 * EdDSA broker without a key, an unreadable PEM, a PEM of the wrong type) is a ConfigError at start-up;
 * a missing HS256 secret is not, because docs/api.md 9.7 makes it an internal error at request time.
 */
import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import { decodeProtectedHeader, errors as jose, jwtVerify, type CryptoKey, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { ConfigError, type AuthConfig } from '../config.js';
import { algorithmMismatch, fromJoseError, invalidSignature, secretNotConfigured, tokenDecodeError, validationError } from './errors.js';
import { RemoteKeySet, type KeyResolver } from './jwks.js';

/** The three verifications; each also names the `<ALG> validation error` texts. */
export type Family = 'HS256' | 'RS256' | 'EdDSA';

const FAMILY_OF: Record<string, Family> = {
  HS256: 'HS256', HS384: 'HS256', HS512: 'HS256', RS256: 'RS256', RS384: 'RS256', RS512: 'RS256', EdDSA: 'EdDSA',
};

/** The header algorithms each JWT_ALGORITHM accepts (docs/api.md 9.7 rule 3). */
const ACCEPTED: Record<AuthConfig['algorithm'], string[]> = {
  HS256: ['HS256'],
  RS256: ['RS256', 'RS384', 'RS512'],
  EdDSA: ['EdDSA'],
  auto: Object.keys(FAMILY_OF),
};

/** How long a verified token is remembered, and how many are. */
const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;

const KEY_TYPE_OF: Partial<Record<string, Family>> = { rsa: 'RS256', ed25519: 'EdDSA' };
const KEY_TYPE_NAME: Record<Family, string> = { HS256: 'HMAC', RS256: 'RSA', EdDSA: 'Ed25519' };

/** Timing knobs of the JWKS cache that are not environment variables (tests shorten the cooldown). */
export interface VerifierOptions {
  jwksCooldownMs?: number;
  onJwksRefreshError?: (error: Error) => void;
  /** The JWKS cache's clock (tests move it instead of sleeping). */
  jwksClock?: () => number;
}

/** Verifies tokens for one configuration. */
export class TokenVerifier {
  private readonly accepted: Set<string>;
  private readonly expected: string;
  private readonly secret: KeyObject | null;
  private readonly publicKey: { key: KeyObject; family: Family } | null;
  /** The remote key set, when JWT_JWKS_URL is set. */
  readonly jwks: RemoteKeySet | null;
  private readonly options: JWTVerifyOptions;
  /** Tokens that verified: claims, and the instant (ms) until which they may be reused. */
  private readonly verified = new Map<string, { claims: JWTPayload; until: number }>();

  /** Builds the keys; throws ConfigError for a configuration that cannot verify any token. */
  constructor(private readonly config: AuthConfig, options: VerifierOptions = {}) {
    this.accepted = new Set(ACCEPTED[config.algorithm]);
    this.expected = config.algorithm === 'auto' ? 'HS256, RS256 or EdDSA' : config.algorithm;
    this.secret = config.secret === undefined ? null : createSecretKey(Buffer.from(config.secret, 'utf8'));
    this.publicKey = config.publicKey === undefined ? null : readPublicKey(config.publicKey);
    this.jwks = config.jwksUrl === undefined ? null : new RemoteKeySet(readJwksUrl(config.jwksUrl), {
      timeoutMs: config.jwksTimeoutMs,
      refreshIntervalMs: config.jwksRefreshIntervalSeconds * 1000,
      ...(options.jwksCooldownMs !== undefined ? { cooldownMs: options.jwksCooldownMs } : {}),
      ...(options.onJwksRefreshError !== undefined ? { onRefreshError: options.onJwksRefreshError } : {}),
      ...(options.jwksClock !== undefined ? { now: options.jwksClock } : {}),
      onReload: () => this.verified.clear(),
    });
    this.options = {
      clockTolerance: config.clockSkewSeconds,
      ...(config.issuer !== undefined ? { issuer: config.issuer } : {}),
      ...(config.audience !== undefined ? { audience: config.audience } : {}),
    };
    const mode = config.algorithm;
    if (mode === 'RS256' || mode === 'EdDSA') {
      if (this.publicKey !== null && this.publicKey.family !== mode) {
        throw new ConfigError(`JWT_PUBLIC_KEY is an ${KEY_TYPE_NAME[this.publicKey.family]} key; JWT_ALGORITHM=${mode} needs an ${KEY_TYPE_NAME[mode]} key`);
      }
      if (this.publicKey === null && this.jwks === null) throw new ConfigError(`JWT_ALGORITHM=${mode} needs JWT_PUBLIC_KEY or JWT_JWKS_URL`);
    }
    if (mode === 'auto' && this.secret === null && this.publicKey === null && this.jwks === null) {
      throw new ConfigError('JWT_ALGORITHM=auto needs at least one of JWT_SECRET, JWT_PUBLIC_KEY, JWT_JWKS_URL');
    }
  }

  /** True when HMAC tokens would get `HS256 secret not configured` (worth a start-up warning). */
  get secretMissing(): boolean {
    return this.secret === null && this.accepted.has('HS256');
  }

  /** Verifies a token; resolves with its claims or rejects with the wire error. */
  async verify(token: string): Promise<JWTPayload> {
    const cached = this.verified.get(token);
    if (cached !== undefined) {
      if (Date.now() < cached.until) {
        this.jwks?.refreshIfDue(); // the refresh interval holds even when every request hits this cache
        return cached.claims;
      }
      this.verified.delete(token);
    }
    const claims = await this.verifyToken(token);
    this.remember(token, claims);
    return claims;
  }

  /** Caches a verified token until min(now + TTL, exp + leeway); the oldest entry goes when the cache is full. */
  private remember(token: string, claims: JWTPayload): void {
    const now = Date.now();
    const until = Math.min(now + CACHE_TTL_MS, typeof claims.exp === 'number' ? (claims.exp + this.config.clockSkewSeconds) * 1000 : Infinity);
    if (until <= now) return;
    if (this.verified.size >= CACHE_MAX_ENTRIES) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, { claims, until });
  }

  private async verifyToken(token: string): Promise<JWTPayload> {
    let alg: unknown;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch (error) {
      throw tokenDecodeError(error instanceof Error ? error.message : String(error));
    }
    if (typeof alg !== 'string') throw tokenDecodeError('JWT header has no "alg"');
    if (!this.accepted.has(alg)) throw algorithmMismatch(alg, this.expected);
    const family = FAMILY_OF[alg]!;
    const key = this.keyFor(family);
    const options: JWTVerifyOptions = { ...this.options, algorithms: [alg] };
    try {
      return (await jwtVerify(token, key, options)).payload;
    } catch (error) {
      if (error instanceof jose.JWKSMultipleMatchingKeys) return this.verifyWithCandidates(token, error, options, family);
      throw fromJoseError(error, family);
    }
  }

  /** A token without `kid` and several usable keys in the set: the first key whose signature checks wins. */
  private async verifyWithCandidates(token: string, candidates: AsyncIterable<CryptoKey>, options: JWTVerifyOptions, family: Family): Promise<JWTPayload> {
    for await (const key of candidates) {
      try {
        return (await jwtVerify(token, key, options)).payload;
      } catch (error) {
        if (!(error instanceof jose.JWSSignatureVerificationFailed)) throw fromJoseError(error, family);
      }
    }
    throw invalidSignature();
  }

  private keyFor(family: Family): KeyObject | KeyResolver {
    if (family === 'HS256') {
      if (this.secret === null) throw secretNotConfigured();
      return this.secret;
    }
    if (this.publicKey !== null && this.publicKey.family === family) return this.publicKey.key;
    if (this.jwks !== null) return this.jwks.resolve;
    // Only reachable with JWT_ALGORITHM=auto: the configuration covers other token families.
    throw validationError(family, this.publicKey === null
      ? 'no JWT_PUBLIC_KEY or JWT_JWKS_URL configured'
      : `JWT_PUBLIC_KEY is not an ${KEY_TYPE_NAME[family]} key`);
  }
}

/** Reads JWT_PUBLIC_KEY: an RSA (2048 bits or more) or Ed25519 public key, SPKI or PKCS#1 PEM, or a certificate. */
function readPublicKey(pem: string): { key: KeyObject; family: Family } {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (error) {
    throw new ConfigError(`JWT_PUBLIC_KEY is not a readable PEM public key (${error instanceof Error ? error.message : String(error)})`);
  }
  const family = KEY_TYPE_OF[key.asymmetricKeyType ?? ''];
  if (family === undefined) throw new ConfigError(`JWT_PUBLIC_KEY must be an RSA or Ed25519 key (got ${key.asymmetricKeyType ?? 'unknown'})`);
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (family === 'RS256' && bits !== undefined && bits < 2048) throw new ConfigError(`JWT_PUBLIC_KEY: RSA keys need at least 2048 bits (got ${bits})`);
  return { key, family };
}

/** Reads JWT_JWKS_URL: an absolute http(s) URL. */
function readJwksUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`JWT_JWKS_URL must be an absolute http(s) URL (got ${raw})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`JWT_JWKS_URL must be an absolute http(s) URL (got ${raw})`);
  return url;
}
