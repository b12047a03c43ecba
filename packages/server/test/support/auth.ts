/**
 * Test helpers for authentication: key pairs, token minting with jose, and a JWKS endpoint served by the test
 * itself (node:http on the loopback) whose key set can be changed and whose fetches are counted.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, type JWK, type JWTPayload } from 'jose';

/** A key pair plus its public JWK (with kid and alg) and SPKI PEM. */
export interface TestKeyPair {
  kid: string;
  alg: 'RS256' | 'EdDSA';
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicPem: string;
  jwk: JWK;
}

/** Generates an RSA-2048 (RS256) or Ed25519 (EdDSA) key pair. */
export async function keyPair(alg: 'RS256' | 'EdDSA', kid: string): Promise<TestKeyPair> {
  const { privateKey, publicKey } = alg === 'RS256'
    ? generateKeyPairSync('rsa', { modulusLength: 2048 })
    : generateKeyPairSync('ed25519');
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), jwk };
}

/** What a test token carries; `exp` defaults to one hour ahead, `iat` to now. */
export interface MintOptions {
  alg?: string;
  kid?: string;
  claims?: JWTPayload & Record<string, unknown>;
  /** Omit the `exp` claim. */
  noExp?: boolean;
}

/** Signs a token with an HMAC secret (string) or a private key. */
export async function mint(key: string | KeyObject, options: MintOptions = {}): Promise<string> {
  const alg = options.alg ?? (typeof key === 'string' ? 'HS256' : key.asymmetricKeyType === 'ed25519' ? 'EdDSA' : 'RS256');
  const now = Math.floor(Date.now() / 1000);
  const claims: JWTPayload = { iat: now, ...(options.noExp ? {} : { exp: now + 3600 }), ...options.claims };
  const jwt = new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT', ...(options.kid !== undefined ? { kid: options.kid } : {}) });
  return jwt.sign(typeof key === 'string' ? new TextEncoder().encode(key) : key);
}

/** A JWKS endpoint for one test file. */
export interface JwksServer {
  url: string;
  /** Replaces the served keys. */
  setKeys(keys: JWK[]): void;
  /** While down, requests are answered 503. */
  setDown(down: boolean): void;
  /** GET requests received so far. */
  readonly hits: number;
  close(): Promise<void>;
}

/** Starts a JWKS endpoint on 127.0.0.1 serving `keys` at `/jwks.json`. */
export async function startJwksServer(keys: JWK[]): Promise<JwksServer> {
  let served = keys;
  let down = false;
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits += 1;
    if (down || req.url !== '/jwks.json') {
      res.writeHead(down ? 503 : 404).end();
      return;
    }
    const body = JSON.stringify({ keys: served });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    setKeys: (next) => (served = next),
    setDown: (value) => (down = value),
    get hits() {
      return hits;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** An `Authorization` header for a token. */
export const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
