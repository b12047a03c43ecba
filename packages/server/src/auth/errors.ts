/**
 * The errors of authentication (docs/api.md 9.7), and the one place where jose's error classes become them.
 *
 * jose reports every failure as a typed error (signature, expiry, claim, key set); callers of `fromJoseError`
 * never look at jose messages themselves, so a jose upgrade that renames a message changes only the `<detail>`
 * parts here, never the fixed texts that clients and tests compare.
 */
import { errors as jose } from 'jose';
import { DomainError } from '../errors.js';

const unauthorized = (text: string): DomainError => new DomainError('unauthenticated', text);

/** Unauthenticated `Authentication required`: no token in the request. */
export const authenticationRequired = (): DomainError => unauthorized('Authentication required');

/** Unauthenticated `Token decode error: <detail>`: not a decodable JWT. */
export const tokenDecodeError = (detail: string): DomainError => unauthorized(`Token decode error: ${detail}`);

/** Unauthenticated `Token uses <alg>, expected <alg>`: the header's algorithm is not the configured one. */
export const algorithmMismatch = (used: string, expected: string): DomainError => unauthorized(`Token uses ${used}, expected ${expected}`);

/** Unauthenticated `Invalid token signature`. */
export const invalidSignature = (): DomainError => unauthorized('Invalid token signature');

/** Unauthenticated `<ALG> validation error: <detail>`: any other failure of an asymmetric verification (no key, JWKS down). */
export const validationError = (family: string, detail: string): DomainError => unauthorized(`${family} validation error: ${detail}`);

/** Forbidden `Insufficient permissions`: no recognised role, or a role below the route's level. */
export const insufficientPermissions = (): DomainError => new DomainError('forbidden', 'Insufficient permissions');

/** Internal `HS256 secret not configured`: an HMAC token arrived and JWT_SECRET is unset. */
export const secretNotConfigured = (): DomainError => new DomainError('internal', 'HS256 secret not configured');

/**
 * Maps an error thrown while verifying a token to its wire error. `family` names the verification that ran
 * (`HS256`, `RS256` or `EdDSA`) for the `<ALG> validation error` texts.
 */
export function fromJoseError(error: unknown, family: string): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof jose.JWSSignatureVerificationFailed) return invalidSignature();
  if (error instanceof jose.JWTExpired) return unauthorized('Token has expired');
  if (error instanceof jose.JWTClaimValidationFailed) {
    if (error.reason === 'invalid') return tokenDecodeError(error.message); // e.g. a non-numeric exp
    if (error.claim === 'nbf') return unauthorized('Token not yet valid');
    if (error.claim === 'iss') return unauthorized('Invalid token issuer');
    if (error.claim === 'aud') return unauthorized('Invalid token audience');
    return validationError(family, error.message);
  }
  if (error instanceof jose.JWSInvalid || error instanceof jose.JWTInvalid) return tokenDecodeError(error.message);
  return validationError(family, error instanceof Error ? error.message : String(error));
}
