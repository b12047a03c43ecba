/**
 * Top-level commands that read the broker's state (docs/cli.md): `ping`, `version`, `status`, `lag`, `metrics`,
 * `lease extend` and `docs`. Table columns follow docs/cli.md (our broker's field names).
 */
import type { Command } from 'commander';
import { registerDocs } from './top/docs.js';
import { registerHealth } from './top/health.js';
import { registerLag } from './top/lag.js';
import { registerMetrics } from './top/metrics.js';
import { registerStatus } from './top/status.js';

/** Registers the top-level read commands. */
export function registerTop(program: Command): void {
  registerHealth(program);
  registerStatus(program);
  registerLag(program);
  registerMetrics(program);
  registerDocs(program);
}
