/**
 * `@queen/client/streams`: the streaming SDK (docs/streams-sdk.md) with the grammar of the official client's
 * `Stream` (port by changing the import), typed end to end, zero runtime dependencies, no Node imports.
 * State, outputs and the source ack of each step commit in one broker transaction (`/streams/v1/cycle`).
 */
export { Stream, WindowedStream, PostStream, RunnableStream, type SinkOptions } from './stream.js';
export { tokenBucketGate, slidingWindowGate, type TokenBucketState, type SlidingWindowState } from './rate-limiters.js';
export { StreamsError, type StreamsErrorCode } from './errors.js';
export { configHashOf } from './config-hash.js';
export type * from './types.js';
