/**
 * What a chaos run found, and how it is told: the run's result, where the database says a missing message is,
 * the JSON line and the human summary (run.ts drives the run).
 */
import pg from 'pg';
import type { Verdict } from '../checker.js';
import { describeError } from '../scenarios/common.js';
import { fmt } from '../scenarios/push.js';
import type { UnexpectedExit } from './brokers.js';
import type { DuplicateReport } from './duplicates.js';
import type { ChaosOptions } from './options.js';
import type { ChaosDatabase } from './postgres.js';
import type { WorkloadStats } from './workload.js';

/** What the chaos loop did. */
export interface ChaosLog {
  kills: number;
  skippedKills: number;
  pgRestarts: number;
  /** Seconds into the run when PostgreSQL was stopped (NaN if never). */
  pgStoppedAtS: number;
  /** Seconds from the start of PostgreSQL until both brokers answered /health 200 (NaN if never). */
  brokersHealthyAfterPgS: number;
  unexpectedExits: UnexpectedExit[];
}

/** Where a missing message is, according to the database. */
export interface Whereabouts {
  transactionId: string;
  partition: string | null;
  offset: string | null;
  committed: string | null;
  leaseExpiresAt: string | null;
  tail: string | null;
}

/** Everything a run measured. */
export interface ChaosResult {
  queue: string;
  figures: Record<string, number>;
  verdict: Verdict;
  duplicates: DuplicateReport;
  checks: Record<string, boolean>;
  chaos: ChaosLog;
  stats: WorkloadStats;
  whereabouts: Whereabouts[];
  notes: string[];
}

/** Asks the database where the given transaction ids are: partition, offset, and the queue-mode cursor. */
export async function locate(database: ChaosDatabase, queue: string, ids: string[], log: (line: string) => void): Promise<Whereabouts[]> {
  if (ids.length === 0) return [];
  const client = new pg.Client(database.clientConfig);
  try {
    await client.connect();
    const { rows } = await client.query<{ transaction_id: string; name: string; offset: string; committed: string | null;
      expires: string | null; tail: string }>(
      `SELECT k.transaction_id, p.name, k.message_offset::text AS offset, c.committed::text AS committed,
              c.lease_expires_at::text AS expires, p.tail::text AS tail
         FROM queen.message_keys k
         JOIN queen.partitions p ON p.id = k.partition_id
         JOIN queen.queues q ON q.id = p.queue_id AND q.name = $1
         LEFT JOIN queen.cursors c ON c.partition_id = p.id AND c.consumer_group = '__QUEUE_MODE__'
        WHERE k.transaction_id = ANY($2::text[])`, [queue, ids]);
    const found = new Map(rows.map((row) => [row.transaction_id, row]));
    return ids.map((transactionId) => {
      const row = found.get(transactionId);
      return {
        transactionId, partition: row?.name ?? null, offset: row?.offset ?? null, committed: row?.committed ?? null,
        leaseExpiresAt: row?.expires ?? null, tail: row?.tail ?? null,
      };
    });
  } catch (error) {
    log(`chaos: could not look the missing messages up in the database: ${describeError(error)}`);
    return [];
  } finally {
    await client.end().catch(() => undefined);
  }
}

function counts(record: Record<string, number>): string {
  const entries = Object.entries(record);
  return entries.length === 0 ? 'none' : entries.map(([label, n]) => `${label} x${fmt(n)}`).join(', ');
}

/** Prints the JSON line (non-finite numbers as null) and, unless --json-only, the human lines. */
class Output {
  constructor(private readonly jsonOnly: boolean) {}

  raw(value: Record<string, unknown>): void {
    process.stdout.write(`${JSON.stringify(value, (_key, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v))}\n`);
  }

  line(text: string): void {
    if (!this.jsonOnly) process.stdout.write(`${text}\n`);
  }
}

export function report(result: ChaosResult, options: ChaosOptions, folder: string): void {
  const reporter = new Output(options.jsonOnly);
  const { figures: f, verdict, duplicates: d, checks, stats, chaos } = result;
  const passed = Object.values(checks).every(Boolean);
  const findings = [
    ...chaos.unexpectedExits.map((exit) => `broker ${exit.broker} (pid ${exit.pid}) exited unexpectedly at ${exit.at} ` +
      `(code ${exit.code}, signal ${exit.signal}); log tail: ${exit.tail.slice(-5).join(' | ')}`),
    ...stats.unexpected5xxExamples.map((line) => `unexpected 5xx: ${line}`),
    ...result.whereabouts.map((w) => w.offset === null
      ? `${w.transactionId}: acknowledged to the producer but NOT in the database`
      : `${w.transactionId}: in partition ${w.partition} at offset ${w.offset} (partition tail ${w.tail}); queue-mode cursor ` +
        `${w.committed ?? 'none'}${w.committed !== null && Number(w.offset) <= Number(w.committed) ? ' (the cursor passed it)' : ''}` +
        `${w.leaseExpiresAt === null ? '' : `, lease expires ${w.leaseExpiresAt}`}`),
    ...result.notes,
  ];
  reporter.raw({
    scenario: 'chaos', run: 1, runs: 1, queue: result.queue, ...f, verdict, checks,
    duplicateClasses: {
      afterLeaseExpiry: d.afterLeaseExpiry, ackRaced: d.ackRaced, unexplained: d.unexplained, withinLease: d.withinLease,
      storedTwice: d.storedTwice, causes: d.causes, examples: d.examples,
    },
    errors: {
      pushFailures: stats.pushFailures.toJSON(), pushItemStatuses: stats.itemStatuses.toJSON(), popFailures: stats.popFailures.toJSON(),
      ackFailures: stats.ackFailures.toJSON(), ackItems: stats.ackItems.toJSON(), unexpected5xx: stats.unexpected5xx.toJSON(),
    },
    findings, logDir: folder,
  });
  reporter.line(`chaos: ${fmt(f['stored'] ?? 0)} of ${fmt(options.messages)} messages stored and ${fmt(f['completed'] ?? 0)} consumed in ` +
    `${f['durationS']} s (push ${fmt(f['pushMsgsPerSec'] ?? 0)} msgs/s over ${f['produceS']} s, consume ${fmt(f['consumeMsgsPerSec'] ?? 0)} msgs/s)`);
  reporter.line(`chaos: ${chaos.kills} broker kills (${chaos.skippedKills} skipped), ${chaos.pgRestarts} PostgreSQL restarts` +
    `${chaos.pgRestarts > 0 ? ` (at ${chaos.pgStoppedAtS} s; brokers healthy ${chaos.brokersHealthyAfterPgS} s after it was back)` : ''}, ` +
    `${chaos.unexpectedExits.length} broker exits observed, ${f['failedBrokerStarts']} failed broker starts`);
  reporter.line(`chaos: push retries ${fmt(stats.pushRetries)} (${fmt(stats.retriedRequests)} of ${fmt(stats.pushRequests)} requests; ` +
    `failures: ${counts(stats.pushFailures.toJSON())}); item answers: ${counts(stats.itemStatuses.toJSON())}`);
  reporter.line(`chaos: pop failures: ${counts(stats.popFailures.toJSON())}; ack retries ${fmt(stats.ackRetries)} ` +
    `(failures: ${counts(stats.ackFailures.toJSON())}); ack results: ${counts(stats.ackItems.toJSON())}; ` +
    `${fmt(stats.ackUnanswered)} acks never answered${stats.ackDropped > 0 ? `, ${fmt(stats.ackDropped)} not sent on purpose` : ''}`);
  reporter.line(`chaos: checker ${verdict.ok ? 'OK' : 'FAILED'}: lost ${verdict.lost}, skipped ${verdict.skipped}, ` +
    `reordered ${verdict.reordered}; duplicates ${fmt(verdict.duplicates)} messages, ${fmt(d.redeliveries)} redeliveries: ` +
    `explained ${fmt(d.explained)} (after lease expiry ${fmt(d.afterLeaseExpiry)}, ack raced the redelivery ${fmt(d.ackRaced)}), ` +
    `unexplained ${fmt(f['duplicatesUnexplained'] ?? 0)} (acked then redelivered ${d.unexplained}, within the lease ${d.withinLease}, ` +
    `stored twice ${d.storedTwice})`);
  if (Object.keys(d.causes).length > 0) reporter.line(`chaos: redeliveries after lease expiry, by the earlier ack's fate: ${counts(d.causes)}`);
  for (const finding of findings) reporter.line(`chaos: FINDING: ${finding}`);
  const failed = Object.entries(checks).filter(([, ok]) => !ok).map(([name]) => name);
  reporter.line(`chaos: ${passed ? 'PASSED' : `FAILED (${failed.join(', ')})`}; logs in ${folder}`);
}
