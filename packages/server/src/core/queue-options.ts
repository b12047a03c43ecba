/**
 * Queue options (docs/api.md 2.2): the defaults of `/configure` (a full replace: every option not sent takes
 * its default) and the mapping between the wire names and the stored columns. The options' types are
 * checked at the edge (http/queue-options.ts).
 */
import type { QueueRow } from '../store/queues.js';

/** The sixteen options, as the wire names them: the option fields of a stored queue row. */
export type QueueOptions = Omit<QueueRow, 'id' | 'name' | 'namespace' | 'task' | 'createdAt'>;

const MIN_POP_WAIT_CEILING = 60_000;

/** `/configure` defaults (every option not sent takes these; a full replace). */
const CONFIGURE_DEFAULTS: Omit<QueueOptions, 'retentionEnabled'> = {
  leaseTime: 300, retryLimit: 3, retryDelay: 0, maxSize: 0, ttl: 3600, priority: 0, delayedProcessing: 0,
  windowBuffer: 0, minPopWaitTime: 0, retentionSeconds: 0, completedRetentionSeconds: 0, encryptionEnabled: false,
  maxWaitTimeSeconds: 0, deadLetterQueue: false, dlqAfterMaxRetries: false,
};

/**
 * The options a `/configure` stores from the ones it was sent: defaults for the rest, minPopWaitTime capped,
 * retention enabled when unsaid and a retention period is set.
 */
export function configuredOptions(given: Partial<QueueOptions>): QueueOptions {
  const options = { ...CONFIGURE_DEFAULTS, ...given };
  options.minPopWaitTime = Math.min(options.minPopWaitTime, MIN_POP_WAIT_CEILING);
  return { ...options, retentionEnabled: given.retentionEnabled ?? (options.retentionSeconds > 0 || options.completedRetentionSeconds > 0) };
}

/** The stored options of a queue row, under their wire names. */
export function optionsOf(row: QueueRow): QueueOptions {
  return {
    leaseTime: row.leaseTime,
    retryLimit: row.retryLimit,
    retryDelay: row.retryDelay,
    maxSize: row.maxSize,
    ttl: row.ttl,
    priority: row.priority,
    delayedProcessing: row.delayedProcessing,
    windowBuffer: row.windowBuffer,
    minPopWaitTime: row.minPopWaitTime,
    retentionSeconds: row.retentionSeconds,
    completedRetentionSeconds: row.completedRetentionSeconds,
    retentionEnabled: row.retentionEnabled,
    encryptionEnabled: row.encryptionEnabled,
    maxWaitTimeSeconds: row.maxWaitTimeSeconds,
    deadLetterQueue: row.deadLetterQueue,
    dlqAfterMaxRetries: row.dlqAfterMaxRetries,
  };
}
