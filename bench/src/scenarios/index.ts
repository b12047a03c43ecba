/**
 * The scenario registry: names accepted on the command line, in their default running order.
 */
import type { Scenario } from './common.js';
import { drainScenario } from './drain.js';
import { e2eScenario } from './e2e.js';
import { pushScenario } from './push.js';

/** Every scenario by name, in default order. */
export const SCENARIOS: ReadonlyMap<string, Scenario> = new Map<string, Scenario>([
  ['push-b1', pushScenario(1)],
  ['push-b10', pushScenario(10)],
  ['push-b100', pushScenario(100)],
  ['drain', drainScenario],
  ['e2e', e2eScenario],
]);
