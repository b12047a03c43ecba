/**
 * Request bodies (docs/api.md 1.2): read up to MAX_PAYLOAD_BYTES, then parsed as a JSON object with the exact
 * error texts of the spec. A body over the limit is never applied: the broker answers 413 and stops reading.
 */
import type { IncomingMessage } from 'node:http';
import { invalid } from '../errors.js';
import { HttpError } from './errors.js';

/** How a route reads its body: required (empty is a 400), optional (empty means `{}`). */
export type BodyMode = 'required' | 'optional';

/** Raised when the body exceeds the limit. */
export const payloadTooLarge = (): HttpError => new HttpError(413, { error: 'Payload too large' }, { Connection: 'close' });

/** Raised when the bytes of bodies in flight would pass MAX_BODY_BYTES_IN_FLIGHT: the client retries later. */
export const bodiesInFlight = (): HttpError =>
  new HttpError(503, { error: 'Server busy: too many request bytes in flight, retry later' }, { 'Retry-After': '1', Connection: 'close' });

/**
 * The bytes of request bodies the broker holds at once (MAX_BODY_BYTES_IN_FLIGHT): a request takes its
 * body's bytes as they arrive (its declared length up front) and gives them back when its response is done.
 * A request that would pass the bound is refused with 503 + Retry-After, unless nothing else is in flight
 * (a bound below one body's size must not refuse every body).
 */
export class BodyBudget {
  private held = 0;

  constructor(private readonly max: number) {}

  /** Bytes held now. */
  get inFlight(): number {
    return this.held;
  }

  /** A request's share: `take` adds bytes (false when refused), `release` gives them all back once. */
  ticket(): { take(bytes: number): boolean; release(): void } {
    let mine = 0;
    return {
      take: (bytes) => {
        if (this.held + bytes > this.max && this.held - mine > 0) return false;
        this.held += bytes;
        mine += bytes;
        return true;
      },
      release: () => {
        this.held -= mine;
        mine = 0;
      },
    };
  }
}

/** Reads the raw body, failing with 413 as soon as it exceeds `limit` bytes (503 when `take` refuses its bytes). */
export function readBody(req: IncomingMessage, limit: number, take: (bytes: number) => boolean = () => true): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(payloadTooLarge());
  const upFront = Number.isFinite(declared) && declared > 0 ? declared : 0;
  if (!take(upFront)) return Promise.reject(bodiesInFlight());
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        reject(payloadTooLarge());
        return;
      }
      if (size > upFront && !take(Math.min(chunk.length, size - upFront))) {
        cleanup();
        reject(bodiesInFlight());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * The deepest nesting of arrays and objects in JSON text, found in one linear scan that skips strings:
 * it runs before JSON.parse so that no recursive walk (parse, stringify, route code) ever sees a body
 * deeper than the limit. Stops counting as soon as `limit` is exceeded. A string is skipped with indexOf
 * to its closing quote (one preceded by an even run of backslashes), not character by character: most of
 * a push body is strings, and this scan cost as much as JSON.parse itself (docs/performance-analysis.md).
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let close = text.indexOf('"', i + 1);
      while (close !== -1) {
        let backslashes = 0;
        while (text.charCodeAt(close - 1 - backslashes) === 0x5c) backslashes += 1;
        if (backslashes % 2 === 0) break;
        close = text.indexOf('"', close + 1);
      }
      if (close === -1) return false; // an unterminated string: JSON.parse refuses the body
      i = close + 1;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth -= 1;
    }
    i += 1;
  }
  return false;
}

/** Parses a body as a JSON object nested at most `maxDepth` levels (the body object itself is level 1). */
export function parseJsonObject(raw: Buffer, mode: BodyMode, maxDepth: number): Record<string, unknown> {
  const text = raw.toString('utf8');
  if (text.trim().length === 0) {
    if (mode === 'optional') return {};
    throw invalid('Empty request body');
  }
  if (jsonDepthExceeds(text, maxDepth)) throw invalid(`Invalid JSON: nested deeper than ${maxDepth} levels`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalid(`Invalid JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalid('Request body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}
