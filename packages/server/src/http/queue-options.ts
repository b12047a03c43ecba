/**
 * The `options` object of a `/configure` body (docs/api.md 2.2), checked at the edge: each option's type and
 * range with the texts of docs/api.md; the defaults are core's (core/queue-options.ts).
 */
import { configuredOptions, type QueueOptions } from '../core/queue-options.js';
import { invalid, type DomainError } from '../errors.js';

type IntegerOption = { [K in keyof QueueOptions]: QueueOptions[K] extends number ? K : never }[keyof QueueOptions];
type BooleanOption = Exclude<keyof QueueOptions, IntegerOption>;

const INT32_MAX = 2_147_483_647;

const NON_NEGATIVE: IntegerOption[] = ['leaseTime', 'retryLimit', 'retryDelay', 'maxSize', 'delayedProcessing',
  'windowBuffer', 'minPopWaitTime', 'retentionSeconds', 'completedRetentionSeconds', 'maxWaitTimeSeconds'];
const SIGNED: IntegerOption[] = ['ttl', 'priority'];
const BOOLEANS: BooleanOption[] = ['retentionEnabled', 'encryptionEnabled', 'deadLetterQueue', 'dlqAfterMaxRetries'];

const invalidOption = (name: string, reason: string): DomainError => invalid(`Invalid option ${name}: ${reason}`);

/** Checks the `options` object of a `/configure` request (null options are unsent) and fills in the defaults. */
export function parseConfigureOptions(raw: unknown): QueueOptions {
  if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
    throw invalid('Invalid option options: must be an object');
  }
  const sent = (raw ?? {}) as Record<string, unknown>;
  const value = (name: string): unknown => (sent[name] === null ? undefined : sent[name]);
  const given: Partial<Record<keyof QueueOptions, number | boolean>> = {};
  for (const name of NON_NEGATIVE) {
    const v = value(name);
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > INT32_MAX) throw invalidOption(name, 'must be a non-negative integer');
    given[name] = v;
  }
  for (const name of SIGNED) {
    const v = value(name);
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || Math.abs(v) > INT32_MAX) throw invalidOption(name, 'must be an integer');
    given[name] = v;
  }
  for (const name of BOOLEANS) {
    const v = value(name);
    if (v === undefined) continue;
    if (typeof v !== 'boolean') throw invalidOption(name, 'must be a boolean');
    given[name] = v;
  }
  return configuredOptions(given as Partial<QueueOptions>);
}
