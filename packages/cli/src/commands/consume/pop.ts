/** `pop` (docs/cli.md): pop once (or up to -n) and print one NDJSON line per message. */
import type { Command } from 'commander';
import * as broker from '@queen/client/api';
import type { Api, CallOptions } from '../../api.js';
import { action, positive, bool, sub } from '../../command.js';
import { noop, userError } from '../../errors.js';
import { parseDuration } from '../../time.js';
import { messageLine, subscriptionFrom, type WireMessage } from './wire.js';
import { warnIfMissing } from './missing-queue.js';

/** Which pop route a run uses: one partition, a whole queue, or discovery by namespace/task. */
interface PopTarget {
  queue: string | undefined;
  partition: string | undefined;
}

function popTarget(queue: string | undefined, partition: string | undefined, opts: { namespace?: string; task?: string }): PopTarget {
  if (!queue && !opts.namespace && !opts.task) throw userError('pop needs a queue, or --namespace and/or --task for a discovery pop');
  return { queue: queue || undefined, partition: queue ? partition : undefined };
}

/** One pop: the messages (empty on 204 or a long-poll timeout) and the answer's queue name. */
async function popOnce(api: Api, target: PopTarget, params: broker.PopQuery, waitMillis: number, signal?: AbortSignal | null): Promise<{ messages: WireMessage[]; queue: string }> {
  const options: CallOptions = { longPoll: true, timeoutMillis: waitMillis + 5000, allowFailure: true, ...(signal !== undefined ? { signal } : {}) };
  const http = api.http(options);
  const body = target.queue === undefined
    ? await broker.popDiscovery(http, params as broker.PopQuery & { namespace: string })
    : target.partition
      ? await broker.popPartition(http, target.queue, target.partition, params)
      : await broker.popQueue(http, target.queue, params);
  return { messages: body?.messages ?? [], queue: body?.queue ?? '' };
}

/** Registers `pop`. */
export function registerPop(program: Command): void {
  action(sub(program, 'pop [queue]', 'Pop messages once and print them as NDJSON (without a queue: a discovery pop by --namespace/--task)', ['queenctl pop orders --cg billing -n 10', 'queenctl pop --namespace shop --auto-ack'])
    .option('--cg <group>', 'consumer group (default: queue mode)')
    .option('--partition <name>', 'only this partition')
    .option('-n, --limit <n>', 'messages to pop (default: --batch, else 1)', positive)
    .option('--batch <n>', 'messages per request (default: --limit); alone, the messages to pop', positive)
    .option('--max-partitions <n>', 'partitions one pop may claim', positive, 1)
    .option('--auto-ack', 'the broker acks on delivery (at-most-once)')
    .option('--wait [bool]', 'long-poll until messages arrive or --timeout', bool, true)
    .option('--no-wait', 'answer at once')
    .option('--timeout <duration>', 'long-poll timeout', '10s')
    .option('--namespace <ns>', 'discovery pop: queues of this namespace')
    .option('--task <task>', 'discovery pop: queues of this task')
    .option('--from-mode <mode>', 'where a new group starts: all, new, new-only')
    .option('--since <time>', 'where a new group starts: a time (now, 15m ago, RFC 3339)'), async (rt, opts, queue) => {
    const api = await rt.api();
    const target = popTarget(queue, opts.partition, opts);
    const timeout = parseDuration(opts.timeout, '--timeout');
    const limit: number = opts.limit ?? opts.batch ?? 1;
    const batch: number = opts.batch ?? limit;
    if (queue) await warnIfMissing(rt, api, queue);
    const params: broker.PopQuery = { wait: opts.wait, timeout, consumerGroup: opts.cg, autoAck: opts.autoAck ? true : undefined, subscriptionMode: opts.fromMode, subscriptionFrom: subscriptionFrom(opts.since), partitions: opts.maxPartitions > 1 ? opts.maxPartitions : undefined, namespace: queue ? undefined : opts.namespace, task: queue ? undefined : opts.task };
    let emitted = 0;
    while (emitted < limit) {
      const { messages, queue: answerQueue } = await popOnce(api, target, { ...params, batch: Math.min(batch, limit - emitted) }, opts.wait ? timeout : 0);
      if (messages.length === 0) break;
      for (const m of messages) process.stdout.write(`${JSON.stringify(messageLine(m, answerQueue || queue || ''))}\n`);
      emitted += messages.length;
    }
    if (emitted === 0) throw noop();
  });
}
