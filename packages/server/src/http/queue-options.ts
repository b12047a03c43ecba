/**
 * The `options` object of a `/configure` body (docs/api.md 2.2): each option's type and range are checked at
 * the edge from the document (`QueueOptionsInput`'s `x-queen-errors`, http/validation.ts) with the texts of
 * docs/api.md; here the options sent are kept (null is unsent, unknown keys are ignored) and core fills in the
 * defaults (core/queue-options.ts).
 */
import type { Wire } from '@queen/client/api';
import { configuredOptions, type QueueOptions } from '../core/queue-options.js';

/** The options a queue has (the keys of `QueueOptions`): anything else in `options` is ignored. */
const OPTION_NAMES: Record<keyof QueueOptions, true> = {
  leaseTime: true, retryLimit: true, retryDelay: true, maxSize: true, ttl: true, priority: true, delayedProcessing: true,
  windowBuffer: true, minPopWaitTime: true, retentionSeconds: true, completedRetentionSeconds: true, retentionEnabled: true,
  encryptionEnabled: true, maxWaitTimeSeconds: true, deadLetterQueue: true, dlqAfterMaxRetries: true,
};

/** The options of a checked `/configure` body, its defaults filled in. */
export function parseConfigureOptions(sent: Wire<'QueueOptionsInput'> | undefined): QueueOptions {
  const given: Partial<Record<keyof QueueOptions, number | boolean>> = {};
  for (const [name, value] of Object.entries(sent ?? {})) {
    if (value !== null && value !== undefined && Object.hasOwn(OPTION_NAMES, name)) given[name as keyof QueueOptions] = value as number | boolean;
  }
  return configuredOptions(given as Partial<QueueOptions>);
}
