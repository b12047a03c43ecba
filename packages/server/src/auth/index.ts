/**
 * Authentication and authorization (docs/api.md 9.7), as the HTTP layer sees it: which requests need a token, and
 * `authorize(header, level)` that resolves with the caller's subject or rejects with the exact wire error.
 * It knows nothing of node:http; the dispatcher hands it the raw path and the Authorization header.
 */
import type { AuthConfig } from '../config.js';
import type { AccessLevel } from './access.js';
import { bearerToken, grantedLevel, satisfies, skipPathMatcher } from './access.js';
import { authenticationRequired, insufficientPermissions } from './errors.js';
import { TokenVerifier, type VerifierOptions } from './verifier.js';

/** Who the caller is, once authorized. */
export interface Caller {
  /** The token's `sub` (stamped as `producerSub` on pushed messages), null when the token has none. */
  subject: string | null;
  /** The caller's role grants ADMIN. */
  admin: boolean;
}

/** The authorizer of one broker process (built only when JWT_ENABLED=true). */
export class Authenticator {
  private readonly skipped: (rawPath: string) => boolean;
  /** The token verifier (exposed for start-up warnings and tests). */
  readonly verifier: TokenVerifier;

  /** Throws ConfigError when the configuration cannot verify any token. */
  constructor(private readonly config: AuthConfig, options: VerifierOptions = {}) {
    this.verifier = new TokenVerifier(config, options);
    this.skipped = skipPathMatcher(config.skipPaths);
  }

  /** True when a request to `rawPath` on a route of level `access` needs no token (PUBLIC or JWT_SKIP_PATHS). */
  exempt(access: AccessLevel, rawPath: string): boolean {
    return access === 'PUBLIC' || this.skipped(rawPath);
  }

  /** Verifies the header's token and checks its role against `required`; rejects with the wire error. */
  async authorize(header: string | undefined, required: AccessLevel): Promise<Caller> {
    const token = bearerToken(header);
    if (token === null) throw authenticationRequired();
    const claims = await this.verifier.verify(token);
    const granted = grantedLevel(claims, this.config);
    if (required !== 'PUBLIC' && (granted === null || !satisfies(granted, required))) throw insufficientPermissions();
    return { subject: typeof claims.sub === 'string' ? claims.sub : null, admin: granted !== null && satisfies(granted, 'ADMIN') };
  }
}
