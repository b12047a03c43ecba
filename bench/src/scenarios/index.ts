/**
 * The scenario registry: names accepted on the command line, in their running order, the default list
 * run when none is named (every scenario except the slow wake, about 50 s a run, pop-one-partition (a 10 000-partition warm-up), sql-produce (the SQL API
 * outbox, twice --duration), the scale and ceiling families and long-lived, several minutes each: name them
 * explicitly), and the families a single name expands to.
 */
import { ceilingDrainScenario, ceilingPushScenario } from './ceiling.js';
import type { Scenario } from './common.js';
import { drainScenario } from './drain.js';
import { e2eScenario } from './e2e.js';
import { fanoutScenario } from './fanout.js';
import { longLivedScenario } from './long-lived.js';
import { pacedPartitions, partitionsScenario, popOnePartitionScenario } from './partitions.js';
import { pushScenario } from './push.js';
import { backlogScenario } from './scale-backlog.js';
import { groupsScenario } from './scale-groups.js';
import { parkedScenario } from './scale-parked.js';
import { sqlProduceScenario } from './sql-produce.js';
import { streamsScenario } from './streams.js';
import { wakeScenario } from './wake.js';

/** Every scenario by name, in order. */
export const SCENARIOS: ReadonlyMap<string, Scenario> = new Map<string, Scenario>([
  ['push-b1', pushScenario(1)],
  ['push-b10', pushScenario(10)],
  ['push-b100', pushScenario(100)],
  ['sql-produce', sqlProduceScenario],
  ['drain', drainScenario],
  ['e2e', e2eScenario],
  ['fanout', fanoutScenario],
  ['partitions', partitionsScenario],
  ['pop-one-partition', popOnePartitionScenario],
  ['wake', wakeScenario],
  ['streams', streamsScenario],
  ['scale-partitions-1k', pacedPartitions('scale-partitions-1k', 1_000)],
  ['scale-partitions-10k', pacedPartitions('scale-partitions-10k', 10_000)],
  ['scale-partitions-100k', pacedPartitions('scale-partitions-100k', 100_000)],
  ['scale-backlog-10k', backlogScenario('scale-backlog-10k', 10_000)],
  ['scale-backlog-1m', backlogScenario('scale-backlog-1m', 1_000_000)],
  ['scale-backlog-10m', backlogScenario('scale-backlog-10m', 10_000_000)],
  ['scale-groups-1', groupsScenario('scale-groups-1', 1)],
  ['scale-groups-10', groupsScenario('scale-groups-10', 10)],
  ['scale-groups-100', groupsScenario('scale-groups-100', 100)],
  ['scale-parked-100', parkedScenario('scale-parked-100', 100)],
  ['scale-parked-1000', parkedScenario('scale-parked-1000', 1_000)],
  ['scale-parked-10000', parkedScenario('scale-parked-10000', 10_000)],
  ['ceiling-push-b10', ceilingPushScenario(10)],
  ['ceiling-push-b100', ceilingPushScenario(100)],
  ['ceiling-drain', ceilingDrainScenario],
  ['long-lived', longLivedScenario],
]);

/** The scenarios run when none is named on the command line, in order. */
export const DEFAULT_SCENARIOS: readonly string[] = ['push-b1', 'push-b10', 'push-b100', 'drain', 'e2e', 'fanout', 'partitions'];

/** Names that stand for a family of scenarios: every registered scenario whose name starts with `<family>-`. */
export const FAMILIES: readonly string[] = ['scale', 'scale-partitions', 'scale-backlog', 'scale-groups', 'scale-parked', 'ceiling'];
