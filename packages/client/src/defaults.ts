/** Defaults shared by the client, its builders and the docs (docs/client.md). */

/** The reserved consumer group of queue mode. */
export const QUEUE_MODE = '__QUEUE_MODE__';

/** Client option defaults of `new Queen()`. */
export const CLIENT_DEFAULTS = Object.freeze({
  timeoutMillis: 30000,
  retryAttempts: 3,
  retryDelayMillis: 1000,
  loadBalancingStrategy: 'affinity' as const,
  affinityHashRing: 128,
  enableFailover: true,
  healthRetryAfterMillis: 5000,
  bearerToken: null,
  headers: Object.freeze({}) as Readonly<Record<string, string>>,
  handleSignals: true,
  logger: null,
});

/** What `create()` sends when `config()` was not called, and the base `config()` merges into. */
export const QUEUE_DEFAULTS = Object.freeze({
  leaseTime: 300,
  retryLimit: 3,
  priority: 0,
  delayedProcessing: 0,
  windowBuffer: 0,
  maxSize: 0,
  retentionSeconds: 0,
  completedRetentionSeconds: 0,
  encryptionEnabled: false,
});

/** Queue-builder defaults (docs/client.md). */
export const BUILDER_DEFAULTS = Object.freeze({
  partition: 'Default',
  batch: 1,
  wait: true,
  timeoutMillis: 30000,
  concurrency: 1,
  bufferMessageCount: 100,
  bufferTimeMillis: 1000,
  renewIntervalMillis: 30000,
  /** Extra HTTP time a waiting pop gets beyond its server-side timeout. */
  pollGraceMillis: 5000,
});
