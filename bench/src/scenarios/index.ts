/**
 * The scenario registry: names accepted on the command line, in their running order, and the default list
 * run when none is named (every scenario except the slow wake, about 50 s a run: name it explicitly).
 */
import type { Scenario } from './common.js';
import { drainScenario } from './drain.js';
import { e2eScenario } from './e2e.js';
import { fanoutScenario } from './fanout.js';
import { partitionsScenario } from './partitions.js';
import { pushScenario } from './push.js';
import { streamsScenario } from './streams.js';
import { wakeScenario } from './wake.js';

/** Every scenario by name, in order. */
export const SCENARIOS: ReadonlyMap<string, Scenario> = new Map<string, Scenario>([
  ['push-b1', pushScenario(1)],
  ['push-b10', pushScenario(10)],
  ['push-b100', pushScenario(100)],
  ['drain', drainScenario],
  ['e2e', e2eScenario],
  ['fanout', fanoutScenario],
  ['partitions', partitionsScenario],
  ['wake', wakeScenario],
  ['streams', streamsScenario],
]);

/** The scenarios run when none is named on the command line, in order. */
export const DEFAULT_SCENARIOS: readonly string[] = ['push-b1', 'push-b10', 'push-b100', 'drain', 'e2e', 'fanout', 'partitions'];
