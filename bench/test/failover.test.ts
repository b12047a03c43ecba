/**
 * The failover harness's kill fault, end to end: a pg_auto_failover cluster (monitor, primary, synchronous
 * standby) as the `postgres` user, two broker processes on its multi-host URL, @queen/client producers and
 * consumers; the primary node is SIGKILLed under load. Nothing acknowledged may be lost or reordered, every
 * duplicate must be a redelivery of an unacked lease, and the brokers must serve pops and commit pushes
 * on the new primary within a few seconds of the engine's promotion.
 *
 * Without pg_auto_failover installed this test fails (never skips), saying which packages to install.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPgAutoctl } from '../src/failover/engine.js';
import { parseFailoverOptions } from '../src/failover/options.js';
import { runFailover } from '../src/failover/run.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** How long after the engine's promotion the brokers may take to serve a pop from the new primary. */
const POP_BOUND_S = 5;
/**
 * The same for the first committed push: a broker first replays the pushes it buffered during the outage,
 * and buffers new ones behind them (per-partition order), at FILE_BUFFER_MAX_BATCH per FILE_BUFFER_FLUSH_MS.
 */
const PUSH_BOUND_S = 10;

test('a SIGKILLed primary: the brokers follow the promoted standby, nothing acknowledged is lost or reordered', { timeout: 300_000 }, async (t) => {
  findPgAutoctl(); // throws "pg_autoctl not found: install the Debian packages ..." when missing
  const lines: string[] = [];
  const log = (line: string): void => void lines.push(`${new Date().toISOString().slice(11, 23)} ${line}`);
  const options = parseFailoverOptions(['--faults', 'kill', '--no-rejoin', '--before', '4', '--after', '5', '--producers', '4', '--consumers', '2', '--rate', '200']);
  const run = await runFailover(options, REPO_ROOT, log).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${lines.join('\n')}`);
  });
  const [result] = run.results;
  assert.ok(result !== undefined);
  const context = `\n${JSON.stringify(result, null, 1)}\n${lines.join('\n')}`;
  assert.ok(result.checks['promoted'], `the monitor promoted no standby${context}`);
  assert.notEqual(result.newPrimary, result.oldPrimary, context);
  assert.ok(result.pushed > 0, `nothing was pushed${context}`);
  assert.equal(result.lost, 0, `lost messages${context}`);
  assert.equal(result.skipped, 0, `skipped messages${context}`);
  assert.equal(result.reordered, 0, `reordered messages${context}`);
  assert.equal(result.duplicatesUnexplained, 0, `duplicates that are not redeliveries of an unacked lease${context}`);
  assert.ok(result.checks['drained'], `stored messages never delivered and acked${context}`);
  assert.equal(result.brokerExits, 0, `a broker exited${context}`);
  assert.ok(result.promotionS < 40, `the engine took ${result.promotionS} s to promote${context}`);
  assert.ok(result.firstPushS <= result.promotionS + PUSH_BOUND_S,
    `first committed push ${result.firstPushS} s after the fault, the promotion at ${result.promotionS} s${context}`);
  assert.ok(result.firstPopS <= result.promotionS + POP_BOUND_S,
    `first served pop ${result.firstPopS} s after the fault, the promotion at ${result.promotionS} s${context}`);
  assert.ok(run.passed, context);
  fs.rmSync(run.folder, { recursive: true, force: true, maxRetries: 5 }); // the logs are kept only when it fails
  t.diagnostic(`promotion ${result.promotionS.toFixed(1)} s, first push ${result.firstPushS.toFixed(1)} s, first pop ` +
    `${result.firstPopS.toFixed(1)} s, ${result.pushed} messages, ${result.redeliveries} redeliveries, ${result.clientErrors} client errors ` +
    `${JSON.stringify(result.errorKinds)}`);
});
