/**
 * The queue options of docs/api.md §2.2 as the CLI knows them: their types, the `queue configure` flags that set them,
 * and the merge that makes a change keep the other options. A configure is a full replace (options
 * not sent reset to defaults), so the CLI reads the current config and sends it whole with the changes applied.
 */
import type { QueueOptions } from '@queen/client';
import { getQueue, type ConfigureRequest } from '@queen/client/api';
import type { Api } from './api.js';
import { userError } from './errors.js';

/** An option's value type. */
type OptionType = 'int' | 'bool';

/** Every option of docs/api.md §2.2 with its type. */
export const QUEUE_OPTIONS: Record<string, OptionType> = {
  leaseTime: 'int', retryLimit: 'int', retryDelay: 'int', maxSize: 'int', ttl: 'int', priority: 'int', delayedProcessing: 'int',
  windowBuffer: 'int', minPopWaitTime: 'int', retentionSeconds: 'int', completedRetentionSeconds: 'int', retentionEnabled: 'bool',
  encryptionEnabled: 'bool', maxWaitTimeSeconds: 'int', deadLetterQueue: 'bool', dlqAfterMaxRetries: 'bool',
};

/** Checks a manifest's or file's option object; exit 1 naming the first bad key. */
export function validateOptions(options: unknown, where: string): Record<string, number | boolean> {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) throw userError(`${where}: config must be a mapping`);
  const out: Record<string, number | boolean> = {};
  for (const [key, value] of Object.entries(options)) {
    const type = QUEUE_OPTIONS[key];
    if (!type) throw userError(`${where}: unknown option "${key}" (known: ${Object.keys(QUEUE_OPTIONS).join(', ')})`);
    if (type === 'bool' && typeof value !== 'boolean') throw userError(`${where}: ${key} must be true or false`);
    if (type === 'int' && (typeof value !== 'number' || !Number.isInteger(value) || (value < 0 && key !== 'priority'))) throw userError(`${where}: ${key} must be a non-negative integer`);
    out[key] = value as number | boolean;
  }
  return out;
}

/** The queue's current namespace, task and options, or undefined when it does not exist. */
export async function currentQueue(api: Api, queue: string): Promise<{ namespace?: string; task?: string; config: Record<string, unknown> } | undefined> {
  const body = await getQueue(api.http({ allowMissing: true }), queue);
  if (!body || 'error' in body) return undefined;
  return { ...(body.namespace ? { namespace: body.namespace } : {}), ...(body.task ? { task: body.task } : {}), config: { ...body.config } };
}

/** The `/configure` body: the current options (if the queue exists) with `changes` applied. */
export async function mergedConfigure(api: Api, queue: string, changes: Record<string, number | boolean>, names: { namespace?: string; task?: string }): Promise<{ body: ConfigureRequest; exists: boolean }> {
  const current = await currentQueue(api, queue);
  const options: Record<string, unknown> = {};
  for (const key of Object.keys(QUEUE_OPTIONS)) if (current?.config[key] !== undefined && current.config[key] !== null) options[key] = current.config[key];
  Object.assign(options, changes);
  // A retention value switched on by this change turns retention on, as a first /configure would (docs/api.md §2.2).
  const retentionChanged = ['retentionSeconds', 'completedRetentionSeconds'].some((k) => typeof changes[k] === 'number' && (changes[k] as number) > 0);
  if (retentionChanged && changes.retentionEnabled === undefined) delete options.retentionEnabled;
  const namespace = names.namespace ?? current?.namespace;
  const task = names.task ?? current?.task;
  // Every key is one of QUEUE_OPTIONS with a value of its type (checked by queueOptions or read from the broker).
  return { body: { queue, ...(namespace ? { namespace } : {}), ...(task ? { task } : {}), options: options as QueueOptions }, exists: current !== undefined };
}
