/**
 * The steps before the database: the JWT authorizer (a configuration that cannot work stops the start-up)
 * and the HTTP port (answers 503 until the routes are served: a taken port stops start-up before anything
 * else starts).
 */
import type http from 'node:http';
import { Authenticator } from '../auth/index.js';
import type { Config } from '../config.js';
import { bindHttpServer } from '../http/listener.js';
import type { Logger } from '../logger.js';
import { StartupError, type Defer } from './sequence.js';

/** Binds the HTTP port; its stop closes it (resolving when its last connection is gone). */
export async function listen(config: Config, defer: Defer): Promise<http.Server> {
  const bound = await bindHttpServer(config.port, config.host, config.http).catch((error: unknown) => {
    throw listenError(error, config);
  });
  defer('HTTP port', () => closeServer(bound));
  return bound;
}

/** The JWT authorizer when JWT_ENABLED, else undefined. */
export function createAuthenticator(config: Config, log: Logger): Authenticator | undefined {
  if (!config.auth.enabled) return undefined;
  const auth = new Authenticator(config.auth, {
    onJwksRefreshError: (error) => log.warn({ err: error }, 'JWKS refresh failed; the previous keys stay in use'),
  });
  if (auth.verifier.secretMissing) log.warn('JWT_SECRET is not set: HS256 tokens will get 500 "HS256 secret not configured"');
  log.info({ algorithm: config.auth.algorithm, jwks: config.auth.jwksUrl !== undefined }, 'JWT authentication enabled');
  return auth;
}

/** Closes a listening server; resolves when its last connection is gone (at once when it is not listening). */
export function closeServer(server: http.Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise<void>((resolve) => server.close(() => resolve()));
}

/** The one-line reason a port could not be bound, for the errors an operator causes; others pass through. */
function listenError(error: unknown, config: Config): unknown {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new StartupError(`port ${config.port} is already in use (set PORT)`);
    case 'EACCES':
      return new StartupError(`port ${config.port} needs privileges this process does not have (set PORT)`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new StartupError(`HOST ${config.host} is not an address of this machine (set HOST)`);
    default:
      return error;
  }
}
