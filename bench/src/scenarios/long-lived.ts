/**
 * long-lived: push-b10, push-b100 and drain rounds against one long-lived broker, with the database's
 * maintenance between rounds, as autovacuum and the checkpointer do under a broker that lives for weeks.
 *
 * Design: ROUNDS rounds, each running the push-b10, push-b100 and drain scenarios as they are (each on a
 * fresh queue, deleted at its end, so a round ends with the message tables empty of live rows). Between
 * rounds, on the broker's database, the two passes autovacuum makes after a mass delete, alternating: an
 * `ANALYZE` alone (tables analysed empty, their indexes still full of dead entries), then a `VACUUM (ANALYZE)`
 * (analysed empty and cleaned), each followed by a `CHECKPOINT`. The broker, and so its pooled sessions and
 * the plans they cached, lives through all rounds. Each workload's rate per round is reported with its lowest and
 * highest share of the first round's; the targets (targets.ts) ask that no round falls below 80 % of the
 * first. A broker whose cached plans go bad on such statistics falls 10-100x here (docs/performance-analysis.md,
 * "The slow ceiling after the scale scenarios: plans built on tables analysed empty"). Skipped without a
 * known database (the maintenance needs a direct session).
 */
import { round } from '../stats.js';
import { describeError, type Scenario, type ScenarioContext, type ScenarioResult } from './common.js';
import { openDatabase } from './database.js';
import { drainScenario } from './drain.js';
import { fmt, pushScenario } from './push.js';

/** Rounds per run: the first, then one after each of three maintenance passes. */
export const LONG_LIVED_ROUNDS = 4;

/** The workloads of a round: the figure prefix, the scenario, and the figure that is its rate. */
const WORKLOADS: readonly { key: string; label: string; scenario: Scenario }[] = [
  { key: 'pushB10', label: 'push-b10', scenario: pushScenario(10) },
  { key: 'pushB100', label: 'push-b100', scenario: pushScenario(100) },
  { key: 'drain', label: 'drain', scenario: drainScenario },
];

/** The statements run before round r (r >= 2), in order (CHECKPOINT needs a superuser or pg_checkpoint). */
function maintenance(roundNumber: number): readonly string[] {
  return roundNumber % 2 === 0 ? ['ANALYZE', 'CHECKPOINT'] : ['VACUUM (ANALYZE)', 'CHECKPOINT'];
}

async function runWorkload(ctx: ScenarioContext, scenario: Scenario): Promise<ScenarioResult> {
  const outcome = await scenario(ctx);
  const result = Array.isArray(outcome) ? outcome[0] : outcome;
  if (result === undefined) throw new Error('the workload returned no result');
  return result;
}

/** The long-lived scenario. */
export const longLivedScenario: Scenario = async (ctx) => {
  const name = 'long-lived';
  if (ctx.database === undefined) {
    return { scenario: name, queue: '', figures: {}, skipped: 'the database is unknown (--url without PG_HOST/DATABASE_URL)', summary: `${name}: skipped` };
  }
  const db = openDatabase(ctx.database, 1);
  const rates = new Map<string, number[]>(WORKLOADS.map((w) => [w.key, []]));
  let exactlyOnce = true;
  let maintenanceFailures = 0;
  const figures: Record<string, number> = {};
  try {
    for (let r = 1; r <= LONG_LIVED_ROUNDS; r++) {
      if (r > 1) {
        for (const statement of maintenance(r)) {
          try {
            await db.query(statement);
          } catch (error) {
            maintenanceFailures++;
            ctx.log(`${name}: ${statement} failed: ${describeError(error)}`);
          }
        }
      }
      const line: string[] = [];
      for (const workload of WORKLOADS) {
        const result = await runWorkload(ctx, workload.scenario);
        const rate = result.figures['msgsPerSec'] ?? NaN;
        rates.get(workload.key)?.push(rate);
        figures[`r${r}${workload.key[0]?.toUpperCase() ?? ''}${workload.key.slice(1)}`] = rate;
        if (result.checks?.['exactlyOnce'] === false) exactlyOnce = false;
        figures['messages'] = (figures['messages'] ?? 0) + (result.figures['messages'] ?? 0); // for CPU per message
        line.push(`${workload.label} ${fmt(rate)}`);
      }
      ctx.log(`${name}: round ${r}/${LONG_LIVED_ROUNDS}${r > 1 ? ` (after ${maintenance(r).join(', ')})` : ''}: ${line.join(', ')} msgs/s`);
    }
  } finally {
    await db.end();
  }
  const parts: string[] = [];
  let worstPct = Infinity;
  for (const workload of WORKLOADS) {
    const series = rates.get(workload.key) ?? [];
    const first = series[0] ?? NaN;
    const shares = series.slice(1).map((rate) => (rate / first) * 100);
    const min = round(Math.min(...shares), 1);
    const max = round(Math.max(...shares), 1);
    figures[`${workload.key}MinPctOfFirst`] = min;
    figures[`${workload.key}MaxPctOfFirst`] = max;
    worstPct = Math.min(worstPct, min);
    parts.push(`${workload.label} ${series.map(fmt).join(' / ')} (${min}-${max} % of the first)`);
  }
  figures['minPctOfFirst'] = round(worstPct, 1);
  figures['maintenanceFailures'] = maintenanceFailures;
  const summary = `${name}: ${LONG_LIVED_ROUNDS} rounds, ANALYZE or VACUUM (ANALYZE) and CHECKPOINT between: ${parts.join('; ')} msgs/s; ` +
    `drains exactly once: ${exactlyOnce ? 'yes' : 'NO'}`;
  return { scenario: name, queue: '', figures, checks: { drainsExactlyOnce: exactlyOnce }, summary };
};
