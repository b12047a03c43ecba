/**
 * Pops on a Citus deployment (docs/scale-out.md section 4), beside citus-routing.ts. A pop of one partition is
 * one delegated `queen.partition_claim`. Wildcard (`/pop/queue/:q`) and discovery pops walk in two steps: one
 * multi-shard read of candidate partitions (tail above the group's cursor, not leased, not in retry delay),
 * rotated after the last partition served, pushed down to every shard because partitions and cursors are
 * co-located; then delegated claims on the candidates in order, sharing the pop's lease id, until the batch
 * or maxPartitions is filled. Each claim is its own transaction (as each partition's lease already is).
 *
 * A wildcard pop asked to hold (holdUnder > 0) on a queue with minPopWaitTime first counts what its candidates
 * would deliver, one delegated `queen.partition_deliverable` each, until the count reaches holdUnder (then it
 * claims) or the candidates run out: 0 < count < holdUnder answers 'hold', as pop_messages' probe does.
 *
 * While a worker is down `queen.partition_candidates` reads the reachable shards one by one, so the live workers'
 * partitions keep serving (section 7).
 *
 * Not on Citus (yet): the wildcard pops' backlog index (the walk reads partitions, one index probe per shard).
 */
import { CLAIM_COLUMNS, claimOutcome, type ClaimedMessage, type ClaimOutcome, type ClaimParams, type ClaimRow } from './cursors.js';
import type { Db } from './database.js';
import { partitionUuid } from './partition-id.js';

const CLAIM = `SELECT ${CLAIM_COLUMNS} FROM queen.partition_claim($1::uuid, $2, $3, $4, $5::uuid, $6, $7)`;
/** A named group's subscription, recorded on the coordinator (subscriptions is a reference table), its queue created first. */
const SUBSCRIBE = `SELECT queen.subscription_record((queen.queue_ensure($1)).id, $2, $3, $4, $5::timestamptz)
  WHERE $2 <> '__QUEUE_MODE__'`;
/** What a claim of one partition would take now (pop_messages' probe for it), delegated to its worker. */
const DELIVERABLE = 'SELECT queen.partition_deliverable($1::uuid, $2, $3, $4)::int AS n';
/** How many candidates one walk reads per partition it may claim: busy ones are skipped. */
const CANDIDATES_PER_CLAIM = 4;

/**
 * The candidates of a wildcard ($1 the queue) or discovery ($1 null; $2, $3 namespace and task filters) pop, in
 * walk order: by queue priority, then partition id after $5, wrapping around (sql/citus/functions/partition_candidates.sql).
 */
const CANDIDATES = `SELECT c.id::text AS id, c.queue, c.min_pop_wait_time AS "minPopWaitTime"
  FROM queen.partition_candidates($1, $2, $3, $4, $5::uuid, $6) c`;

/** A partition the walk may claim, with its queue's minPopWaitTime (ms). */
interface Candidate {
  id: string;
  queue: string;
  minPopWaitTime: number;
}

/** The walk's candidates (CANDIDATES). */
async function candidatesOf(db: Db, p: ClaimParams): Promise<Candidate[]> {
  const claims = p.maxPartitions > 0 ? p.maxPartitions : p.batch;
  const result = await db.query<Candidate>(CANDIDATES, [
    p.scope === 'queue' ? p.queue : null, p.scope === 'discovery' ? p.namespace : null, p.scope === 'discovery' ? p.task : null,
    p.group, p.rotateAfter ?? '00000000-0000-0000-0000-000000000000', claims * CANDIDATES_PER_CLAIM]);
  return result.rows;
}

async function claimOne(db: Db, p: ClaimParams, queue: string, id: string, batch: number): Promise<ClaimRow[]> {
  const result = await db.query<ClaimRow>({
    name: 'queen.partition_claim',
    text: CLAIM,
    values: [id, queue, p.group, batch, p.leaseId, p.leaseSeconds, p.autoAck],
  });
  return result.rows;
}

/**
 * minPopWaitTime's probe over the walk's candidates (module note): the hold in ms when the queue asks for one and
 * 0 < deliverable < holdUnder, else null (claim now). Counts at most maxPartitions partitions that have some.
 */
async function holdProbe(db: Db, p: ClaimParams, candidates: Candidate[]): Promise<number | null> {
  const holdMs = candidates[0]?.minPopWaitTime ?? 0;
  if (p.scope !== 'queue' || p.holdUnder <= 0 || holdMs <= 0) return null;
  let deliverable = 0;
  let partitions = 0;
  for (const candidate of candidates) {
    const result = await db.query<{ n: number }>({
      name: 'queen.partition_deliverable',
      text: DELIVERABLE,
      values: [candidate.id, candidate.queue, p.group, p.batch],
    });
    const n = result.rows[0]?.n ?? 0;
    if (n === 0) continue;
    deliverable += n;
    partitions += 1;
    if (deliverable >= p.holdUnder || (p.maxPartitions > 0 && partitions >= p.maxPartitions)) break;
  }
  return deliverable > 0 && deliverable < p.holdUnder ? holdMs : null;
}

async function subscribe(db: Db, p: ClaimParams, queue: string, partition: string): Promise<void> {
  if (p.firstAttempt && p.subscribeMode !== null) await db.query(SUBSCRIBE, [queue, p.group, partition, p.subscribeMode, p.subscribeFrom]);
}

/** `cursorClaim` on Citus (see the module note). */
export async function cursorClaimByPartition(db: Db, p: ClaimParams): Promise<ClaimOutcome> {
  if (p.scope === 'partition') {
    const queue = p.queue!;
    const partition = p.partition!;
    await subscribe(db, p, queue, partition);
    const rows = await claimOne(db, p, queue, partitionUuid(queue, partition), p.batch);
    if (rows[0]?.emptyReason !== 'no-queue') return claimOutcome(rows);
    // docs/api.md 5.3: the first attempt creates the queue; its partition cannot exist yet.
    if (p.firstAttempt) await db.query('SELECT 1 FROM queen.queue_ensure($1)', [queue]);
    return { kind: 'empty', reason: 'no_partition' };
  }
  if (p.scope === 'queue') {
    if (p.firstAttempt) await db.query('SELECT 1 FROM queen.queue_ensure($1)', [p.queue!]);
    await subscribe(db, p, p.queue!, '');
  }
  const candidates = await candidatesOf(db, p);
  const holdMs = await holdProbe(db, p, candidates);
  if (holdMs !== null) return { kind: 'hold', holdMs };
  const messages: ClaimedMessage[] = [];
  const subscribed = new Set<string>();
  let claimed = 0;
  for (const candidate of candidates) {
    if (p.scope === 'discovery' && !subscribed.has(candidate.queue)) {
      subscribed.add(candidate.queue);
      await subscribe(db, p, candidate.queue, '');
    }
    const outcome = claimOutcome(await claimOne(db, p, candidate.queue, candidate.id, p.batch - messages.length));
    if (outcome.kind !== 'messages') continue;
    messages.push(...outcome.messages);
    claimed += 1;
    if (messages.length >= p.batch || (p.maxPartitions > 0 && claimed >= p.maxPartitions)) break;
  }
  return messages.length > 0 ? { kind: 'messages', messages } : { kind: 'empty', reason: 'none' };
}
