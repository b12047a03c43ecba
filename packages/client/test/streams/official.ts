/**
 * Imports modules of the official Queen JS client (found as the server's streams fixtures find it), for
 * cross-checks of pure functions against the official implementation.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { officialClientDir } from '../../../server/test/support/streams.js';

/** Imports a module of the official client by its path under client-v2. */
export async function officialModule<M = Record<string, any>>(relative: string): Promise<M> {
  return (await import(pathToFileURL(path.join(officialClientDir(), relative)).href)) as M;
}
