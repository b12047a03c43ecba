/**
 * What every scenario shares: its context and result shapes, queue lifecycle, partition rotation and the
 * work budgets that tell producers how much to send.
 *
 * Design: scenarios are plain async functions `(ctx) => ScenarioResult`. Each gets a fresh queue named
 * bench-<scenario>-<timestamp>, configured before and deleted after (even on failure). Work budgets are tiny
 * shared objects so any number of concurrent producers can draw from one count or one deadline.
 */
import { randomBytes } from 'node:crypto';
import type { Verdict } from '../checker.js';
import type { QueenClient } from '../http.js';
import type { DatabaseTarget } from '../pg-info.js';
import type { ProfiledSpan } from '../profile.js';
import type { ResourceFigures } from '../resources.js';

/** Settings a scenario may use, from the command line. */
export interface ScenarioContext {
  client: QueenClient;
  /** Seconds of load for time-bound scenarios. */
  durationS: number;
  /** Messages to pre-fill for the drain scenario. */
  messages: number;
  /** Consumer group for consuming scenarios; undefined means queue mode. */
  group: string | undefined;
  /** The `partitions` pop parameter for wildcard consumers (0 = no cap). */
  popPartitions: number;
  /** How producers rotate partitions: one partition per request, or the next partition for every item. */
  spread: 'request' | 'item';
  /** The partitions scenario's paced push rate (msgs/s in total) and partition count. */
  rate: number;
  partitionsCount: number;
  /**
   * The broker's database when the tool knows it (the embedded PostgreSQL of the broker it started, or
   * PG_HOST/DATABASE_URL): scenarios that fill or read it directly skip without it.
   */
  database: DatabaseTarget | undefined;
  /** Progress lines (stderr); silent with --json-only. */
  log: (line: string) => void;
  /**
   * A second broker on the same database as `client` (--url2, or one the tool starts on the first one's
   * database on first use, then keeps until the end). Rejects when it could not be started.
   */
  secondBroker: () => Promise<SecondBroker>;
  /**
   * Starts sampling the CPU split and broker RSS of one phase of the scenario (stop() returns its figures),
   * for scenarios that compare phases: the whole run is sampled anyway.
   */
  phaseResources: () => { stop: () => ResourceFigures };
  /** CPU time the broker the tool started has used so far (µs); NaN with --url. For --profile's per-request CPU. */
  brokerCpuUs: () => number;
}

/** The second broker of a two-process measurement, or why there is none. */
export type SecondBroker = { client: QueenClient; reason?: undefined } | { client: null; reason: string };

/** What a scenario run reports. */
export interface ScenarioResult {
  scenario: string;
  /** The variant measured, for scenarios that report several per run (e.g. wake: one-process, two-process). */
  mode?: string;
  queue: string;
  /** Numeric figures; with --runs N the median of each is reported. */
  figures: Record<string, number>;
  /** The no-loss checker's verdict, for scenarios that consume. */
  verdict?: Verdict;
  /** Scenario-specific pass/fail checks; any false one makes the process exit non-zero, like a bad verdict. */
  checks?: Record<string, boolean>;
  /** Why this mode was not measured; a skipped result has no figures and is left out of the median. */
  skipped?: string;
  /** One human-readable line. */
  summary: string;
  /** The measured window and its requests, for --profile's per-stage summary (scenarios that mark one). */
  profile?: ProfiledSpan;
}

/** A scenario implementation: one result per run, or one per mode. */
export type Scenario = (ctx: ScenarioContext) => Promise<ScenarioResult | ScenarioResult[]>;

/** The number of partitions every scenario spreads over. */
export const PARTITIONS = 100;

/** The checker's label for queue mode (no consumer group). */
export const QUEUE_MODE_LABEL = '__QUEUE_MODE__';

/** Partition names p0..p(n-1). */
export function partitionNames(count = PARTITIONS): string[] {
  return Array.from({ length: count }, (_, i) => `p${i}`);
}

/** A fresh queue name for a scenario run. */
export function freshQueueName(scenario: string): string {
  return `bench-${scenario}-${Date.now()}-${randomBytes(2).toString('hex')}`;
}

/** A short random tag that makes transaction ids unique per run. */
export function runTag(): string {
  return randomBytes(4).toString('hex');
}

/** Milliseconds on a monotonic clock. */
export function now(): number {
  return performance.now();
}

/** Wall-clock milliseconds with sub-millisecond precision (comparable across workers of this process). */
export function wallClockMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A short description of an error for logs and reports. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Configures a fresh queue, runs `body`, and deletes the queue afterwards (best effort). */
export async function withQueue<T>(ctx: ScenarioContext, queue: string, options: Record<string, unknown>,
  body: () => Promise<T>): Promise<T> {
  await ctx.client.configure(queue, options);
  try {
    return await body();
  } finally {
    try {
      const status = await ctx.client.deleteQueue(queue);
      if (status < 200 || status >= 300) ctx.log(`delete ${queue}: HTTP ${status}`);
    } catch (error) {
      ctx.log(`delete ${queue}: ${describeError(error)}`);
    }
  }
}

/** Where producers draw their work from: how many items they may send next. */
export interface WorkBudget {
  /** Claims up to `max` items; 0 means stop. */
  take(max: number): number;
  /** Returns items that were claimed but not accepted, so they are sent again. */
  refund(count: number): void;
}

/** A budget of exactly `total` items. */
export function countBudget(total: number): WorkBudget {
  let left = total;
  return {
    take(max) {
      const n = Math.min(max, left);
      left -= n;
      return n;
    },
    refund(count) {
      left += count;
    },
  };
}

/** A budget of full batches until the monotonic time `deadline` (ms) or until `stop()` is called. */
export function timeBudget(deadline: number): WorkBudget & { stop(): void } {
  let stopped = false;
  return {
    take: (max) => (stopped || now() >= deadline ? 0 : max),
    refund: () => undefined,
    stop: () => {
      stopped = true;
    },
  };
}

/** Hands out partition names round-robin, shared by all producers of a run. */
export class PartitionRotation {
  private next = 0;

  /** `names` is the partition list to rotate over. */
  constructor(private readonly names: readonly string[]) {}

  /** The next partition name. */
  take(): string {
    const name = this.names[this.next % this.names.length] ?? 'p0';
    this.next++;
    return name;
  }
}
