/**
 * Queue options (docs/api.md 2.2): validation and defaults for `/configure`, and the mapping between the wire
 * names and the stored columns.
 */
import { HttpError, badRequest } from '../errors.js';
import type { QueueRow } from '../store/queues.js';

/** The sixteen options, as the wire names them: the option fields of a stored queue row. */
export type QueueOptions = Omit<QueueRow, 'id' | 'name' | 'namespace' | 'task' | 'createdAt'>;

type IntegerOption = { [K in keyof QueueOptions]: QueueOptions[K] extends number ? K : never }[keyof QueueOptions];
type BooleanOption = Exclude<keyof QueueOptions, IntegerOption>;

const INT32_MAX = 2_147_483_647;
const MIN_POP_WAIT_CEILING = 60_000;

/** `/configure` defaults (every option not sent takes these; a full replace). */
const CONFIGURE_DEFAULTS: Omit<QueueOptions, 'retentionEnabled'> = {
  leaseTime: 300, retryLimit: 3, retryDelay: 0, maxSize: 0, ttl: 3600, priority: 0, delayedProcessing: 0,
  windowBuffer: 0, minPopWaitTime: 0, retentionSeconds: 0, completedRetentionSeconds: 0, encryptionEnabled: false,
  maxWaitTimeSeconds: 0, deadLetterQueue: false, dlqAfterMaxRetries: false,
};

const NON_NEGATIVE: IntegerOption[] = ['leaseTime', 'retryLimit', 'retryDelay', 'maxSize', 'delayedProcessing',
  'windowBuffer', 'minPopWaitTime', 'retentionSeconds', 'completedRetentionSeconds', 'maxWaitTimeSeconds'];
const SIGNED: IntegerOption[] = ['ttl', 'priority'];
const BOOLEANS: BooleanOption[] = ['retentionEnabled', 'encryptionEnabled', 'deadLetterQueue', 'dlqAfterMaxRetries'];

const invalid = (name: string, reason: string): HttpError => badRequest(`Invalid option ${name}: ${reason}`);

/** Validates the `options` object of a `/configure` request and fills in the defaults. */
export function parseConfigureOptions(raw: unknown): QueueOptions {
  if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
    throw badRequest('Invalid option options: must be an object');
  }
  const given = (raw ?? {}) as Record<string, unknown>;
  const value = (name: string): unknown => (given[name] === null ? undefined : given[name]);
  const options: Record<string, number | boolean> = { ...CONFIGURE_DEFAULTS };

  for (const name of NON_NEGATIVE) {
    const v = value(name);
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > INT32_MAX) throw invalid(name, 'must be a non-negative integer');
    options[name] = name === 'minPopWaitTime' ? Math.min(v, MIN_POP_WAIT_CEILING) : v;
  }
  for (const name of SIGNED) {
    const v = value(name);
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || Math.abs(v) > INT32_MAX) throw invalid(name, 'must be an integer');
    options[name] = v;
  }
  for (const name of BOOLEANS) {
    const v = value(name);
    if (v === undefined) continue;
    if (typeof v !== 'boolean') throw invalid(name, 'must be a boolean');
    options[name] = v;
  }
  if (value('retentionEnabled') === undefined) {
    options.retentionEnabled = (options.retentionSeconds as number) > 0 || (options.completedRetentionSeconds as number) > 0;
  }
  return options as unknown as QueueOptions;
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
