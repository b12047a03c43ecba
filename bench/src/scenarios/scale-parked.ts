/**
 * scale-parked-*: many idle long polls: what they cost the broker, and how fast a push wakes one of them.
 *
 * Design: N queues (one per long poll, created by each poll's first attempt), each with one consumer that
 * loops wildcard pops with wait=true, timeout 30 s, batch 1, autoAck, on its own HTTP connection. Once
 * every poll has made its first attempt (all N queues exist, read over the direct database connection;
 * without it, a settle time of N/500 s) and a second has passed, 200 single-item pushes are sent at an even
 * pace over --duration seconds, each into a random one of the queues; wake latency is the poll's answer
 * time minus the push's send time (it includes the push's own commit). Meanwhile the broker's database
 * sessions are counted every 500 ms (pg_stat_activity, this tool's own excluded): parked polls must hold
 * no connection, so the count stays at most the pool size plus the LISTEN connection. The polls are then
 * aborted and the queues dropped. Broker RSS is the sampler's peak over the scenario.
 */
import { setMaxListeners } from 'node:events';
import { QueenClient } from '../http.js';
import { Samples, round } from '../stats.js';
import { describeError, freshQueueName, now, runTag, sleep, wallClockMs, type Scenario, type ScenarioContext, type ScenarioResult } from './common.js';
import { openDatabase, otherSessions } from './database.js';
import { fmt } from './push.js';

const WAKES = 200;
const POLL_TIMEOUT_MS = 30_000;
const DELIVERY_GRACE_MS = 5_000;

/** The parked-polls measurement with `count` polls, under the scenario name `name`. */
export function parkedScenario(name: string, count: number): Scenario {
  return async (ctx: ScenarioContext): Promise<ScenarioResult> => {
    const prefix = freshQueueName(name);
    const queues = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    const client = new QueenClient(ctx.client.baseUrl, count + 16);
    const db = ctx.database === undefined ? undefined : openDatabase(ctx.database, 2);
    const abort = new AbortController();
    setMaxListeners(count + 16, abort.signal); // every poll listens on it
    const sent = new Map<string, number>();
    const wake = new Samples();
    const pushLatency = new Samples();
    let popErrors = 0;
    let lastError: string | null = null;
    let delivered = 0;
    try {
      const polls = Promise.all(queues.map(async (queue) => {
        while (!abort.signal.aborted) {
          try {
            const response = await client.pop(queue, { batch: 1, wait: true, timeoutMs: POLL_TIMEOUT_MS, autoAck: true }, abort.signal);
            const at = wallClockMs();
            for (const message of response.messages) {
              const sentAt = sent.get(message.transactionId);
              if (sentAt !== undefined) wake.add(at - sentAt);
              delivered++;
            }
            if (response.statusCode !== 200 && response.statusCode !== 204) {
              popErrors++;
              lastError = `pop: HTTP ${response.statusCode}`;
              await sleep(100);
            }
          } catch (error) {
            if (abort.signal.aborted) return;
            popErrors++;
            lastError = `pop: ${describeError(error)}`;
            await sleep(100);
          }
        }
      }));

      // Wait until every poll has made its first attempt, then let them settle into parking.
      const parkStart = now();
      if (db !== undefined) {
        for (;;) {
          const result = await db.query<{ n: string }>('SELECT count(*) AS n FROM queen.queues WHERE name LIKE $1', [`${prefix}-%`]);
          if (Number(result.rows[0]?.n ?? 0) >= count || now() - parkStart > 120_000) break;
          await sleep(200);
        }
      } else {
        await sleep(Math.max(2000, count * 2));
      }
      const parkMs = now() - parkStart;
      await sleep(1000);
      ctx.log(`${name}: ${fmt(count)} polls parked in ${(parkMs / 1000).toFixed(1)} s; ${WAKES} wakes over ${ctx.durationS} s`);

      let sessionsMax = NaN;
      const sampleSessions = async (): Promise<void> => {
        if (db === undefined) return;
        const n = await otherSessions(db);
        if (!(n <= sessionsMax)) sessionsMax = n;
      };
      const sampler = setInterval(() => void sampleSessions().catch(() => undefined), 500);
      const tag = runTag();
      const started = now();
      try {
        for (let i = 0; i < WAKES; i++) {
          const due = started + (i * ctx.durationS * 1000) / WAKES;
          if (due > now()) await sleep(due - now());
          const queue = queues[Math.floor(Math.random() * count)] ?? prefix;
          const transactionId = `${tag}.${i}`;
          const at = wallClockMs();
          sent.set(transactionId, at);
          const t0 = now();
          const response = await ctx.client.push([{ queue, partition: 'p0', payload: { seq: i, ts: at }, transactionId }]);
          if (response.statusCode >= 200 && response.statusCode < 300) pushLatency.add(now() - t0);
          else lastError = `push: HTTP ${response.statusCode}`;
        }
        const graceEnd = now() + DELIVERY_GRACE_MS;
        while (delivered < WAKES && now() < graceEnd) await sleep(50);
        await sampleSessions();
      } finally {
        clearInterval(sampler);
      }
      abort.abort();
      await polls;

      const figures = {
        parkedPolls: count,
        parkS: round(parkMs / 1000),
        wakes: WAKES,
        delivered,
        wakeP50Ms: round(wake.percentile(50)),
        wakeP99Ms: round(wake.percentile(99)),
        wakeMaxMs: round(wake.max()),
        pushP50Ms: round(pushLatency.percentile(50)),
        dbSessionsMax: sessionsMax,
        popErrors,
      };
      const summary = `${name}: ${fmt(count)} parked long polls: wake p50 ${figures.wakeP50Ms} ms, p99 ${figures.wakeP99Ms} ms, ` +
        `max ${figures.wakeMaxMs} ms (${delivered}/${WAKES} delivered; push p50 ${figures.pushP50Ms} ms), broker database sessions ` +
        `max ${Number.isFinite(sessionsMax) ? sessionsMax : 'n/a'}${lastError !== null ? `; last error: ${lastError}` : ''}`;
      return { scenario: name, queue: `${prefix}-*`, figures, checks: { allWoken: delivered >= WAKES }, summary };
    } finally {
      abort.abort();
      await client.close().catch(() => undefined);
      if (db !== undefined) {
        await db.query('SELECT queen.queue_delete(name) FROM queen.queues WHERE name LIKE $1', [`${prefix}-%`])
          .catch((error: unknown) => ctx.log(`${name}: cleanup: ${describeError(error)}`));
        await db.end();
      }
    }
  };
}
