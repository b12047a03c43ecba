/**
 * The alert rules (deploy/prometheus) and the Grafana dashboard (deploy/grafana) against the real thing:
 * promtool checks the rules and the compose Prometheus configuration and runs the rules' unit tests; a real
 * broker, after a short workload, exposes every family and label the rules and the dashboard read; every runbook
 * link of the rules lands on a heading of docs/operations.md.
 *
 * promtool comes with Debian's `prometheus` package (.ci/run installs it).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { uniqueQueue, useBroker } from '../../packages/server/test/support/harness.js';
import { ackAll, popOk, pushIds, scrape, waitFor } from '../../packages/server/test/support/monitoring.js';
import type { Family } from '../../packages/server/test/support/prometheus.js';
import { dashboard, dashboardExpressions, labelNames, metricNames, ROOT, ruleExpressions, SCRAPE_LABELS, type Expression } from './promql.js';

/** Runs promtool; fails with its output, or with how to install it. */
function promtool(...args: string[]): string {
  const run = spawnSync('promtool', args, { cwd: ROOT, encoding: 'utf8' });
  if (run.error) assert.fail(`promtool not found (${run.error.message}): apt-get install prometheus`);
  assert.equal(run.status, 0, `promtool ${args.join(' ')}:\n${run.stdout}${run.stderr}`);
  return run.stdout + run.stderr;
}

describe('promtool', () => {
  test('check rules: the alert rules are valid', () => {
    assert.match(promtool('check', 'rules', 'deploy/prometheus/queen-alerts.yml'), /SUCCESS: 8 rules found/);
  });

  test('check config: the Prometheus configuration of compose.yaml is valid and loads the rules', () => {
    const out = promtool('check', 'config', 'deploy/prometheus/prometheus.yml');
    assert.match(out, /SUCCESS: 1 rule files found/);
  });

  test('test rules: every alert fires on its incident and stays silent on its healthy neighbours', () => {
    assert.match(promtool('test', 'rules', 'deploy/prometheus/queen-alerts.test.yml'), /SUCCESS/);
  });

  test('the unit tests cover every alert', () => {
    const tests = fs.readFileSync(path.join(ROOT, 'deploy/prometheus/queen-alerts.test.yml'), 'utf8');
    for (const rule of ruleExpressions()) assert.match(tests, new RegExp(`alertname: ${rule.alert}\\n`), `no promtool test for ${rule.alert}`);
  });
});

describe('runbooks', () => {
  test('every alert links a runbook heading of docs/operations.md', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
    const anchors = new Set([...doc.matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.trim().toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-')));
    for (const rule of ruleExpressions()) {
      const link = rule.annotations.runbook_url;
      assert.ok(link, `${rule.alert} has no runbook_url`);
      const [file, anchor] = link.split('#');
      assert.equal(file, 'docs/operations.md', `${rule.alert}: ${link}`);
      assert.ok(anchors.has(anchor!), `${rule.alert}: docs/operations.md has no heading #${anchor}`);
      assert.ok(rule.annotations.summary && rule.annotations.description, `${rule.alert} needs a summary and a description`);
    }
  });
});

describe('the Grafana dashboard', () => {
  test('is one dashboard whose every panel queries Prometheus through the $datasource variable', () => {
    const board = dashboard();
    assert.equal(board.uid, 'queen-brokers');
    const datasource = board.templating.list.find((v) => v.name === 'datasource');
    assert.equal(datasource?.type, 'datasource');
    assert.equal(datasource?.query, 'prometheus');
    const ids = new Set<number>();
    for (const panel of board.panels) {
      assert.ok(!ids.has(panel.id), `panel id ${panel.id} twice`);
      ids.add(panel.id);
      if (panel.type === 'row') continue;
      assert.ok(panel.targets && panel.targets.length > 0, `panel "${panel.title}" has no query`);
      for (const target of panel.targets) {
        assert.equal(target.datasource?.uid, '${datasource}', `panel "${panel.title}"`);
        assert.ok(target.expr.trim().length > 0, `panel "${panel.title}" has an empty query`);
      }
    }
  });

  test('shows what an operator looks for: throughput, lag, DLQ, parked pops, pool, buffer, errors', () => {
    const read = new Set(dashboardExpressions().flatMap((e) => metricNames(e.expr)));
    for (const family of [
      'queen_messages_pushed_total', 'queen_messages_popped_total', 'queen_messages_acked_total', 'queen_queue_lag_seconds',
      'queen_queue_pending_messages', 'queen_dlq_depth', 'queen_messages_dlq_total', 'queen_long_polls_parked', 'queen_db_pool_connections',
      'queen_db_pool_waiting', 'queen_file_buffer_pending_messages', 'queen_http_requests_total', 'queen_db_errors_total',
    ]) {
      assert.ok(read.has(family), `the dashboard does not show ${family}`);
    }
  });
});

// A broker with a short workload: pushes, pops, acks (completed and dlq), a consumer group left behind (lag),
// a parked pop during the scrape, an empty pop. STATS_INTERVAL_MS bounds the reuse of the database gauges.
const setup = useBroker({ STATS_INTERVAL_MS: '500' });

/**
 * Families that count failures only: a healthy broker declares them (HELP, TYPE) without a sample, and a broker
 * rides out the failures a test can cause (terminated connections) without counting one. Their labels, which the
 * exposition cannot show without samples, are the ones the broker's own metrics test asserts
 * (packages/server/test/e2e/metrics.test.ts).
 */
const FAILURE_ONLY = new Map([['queen_db_errors_total', ['kind']]]);

/** The family a sample name belongs to (`_bucket`, `_sum`, `_count` of histograms). */
function familyOf(families: Map<string, Family>, name: string): Family | undefined {
  return families.get(name) ?? families.get(name.replace(/_(bucket|sum|count)$/, ''));
}

describe('every metric the rules and the dashboard read exists in a real scrape', () => {
  test('after a short workload, with its labels', async () => {
    const { api } = setup;
    const queue = uniqueQueue('deploy');
    await pushIds(api, queue, ['a1', 'a2', 'a3']);
    const popped = await popOk(api, `/api/v1/pop/queue/${queue}`, 'batch=3');
    await ackAll(api, popped, ['completed', 'dlq']);
    // a consumer group that has not consumed: lag for (queue, group)
    await pushIds(api, queue, ['b1']);
    const group = await popOk(api, `/api/v1/pop/queue/${queue}`, 'consumerGroup=reporting&batch=1');
    assert.equal(group.messages.length, 1);
    assert.equal((await api.get(`/api/v1/pop/queue/${uniqueQueue('empty')}`)).status, 204);
    // a parked pop while scraping
    const parkedQueue = uniqueQueue('parked');
    const parked = api.get(`/api/v1/pop/queue/${parkedQueue}?wait=true&timeout=10000`);
    const families = await waitFor(() => scrape(setup.broker.url), (f) => (f.get('queen_long_polls_parked')?.samples.length ?? 0) > 0 && (f.get('queen_queue_lag_seconds')?.samples.length ?? 0) > 0);
    await pushIds(api, parkedQueue, ['wake']); // answers the parked pop
    assert.equal((await parked).status, 200);

    const expressions: Expression[] = [...ruleExpressions(), ...dashboardExpressions()];
    const missing: string[] = [];
    for (const { where, expr } of expressions) {
      const names = metricNames(expr);
      const read = names.filter((n) => n !== 'up').map((n) => familyOf(families, n));
      names.filter((n) => n !== 'up').forEach((n, i) => {
        if (read[i] === undefined) missing.push(`${where}: ${n} is not exposed`);
        else if (read[i]!.samples.length === 0 && !FAILURE_ONLY.has(read[i]!.name)) missing.push(`${where}: ${n} has no sample after the workload`);
      });
      const labelsOf = (f: Family | undefined): string[] => (f === undefined ? [] : [...(FAILURE_ONLY.get(f.name) ?? []), ...f.samples.flatMap((s) => Object.keys(s.labels))]);
      const known = new Set([...SCRAPE_LABELS, ...read.flatMap(labelsOf)]);
      for (const label of labelNames(expr)) {
        if (!known.has(label)) missing.push(`${where}: label ${label} is on none of ${names.join(', ')}`);
      }
    }
    assert.deepEqual(missing, []);
  });
});

test('the label check can fail: a label no family has is reported', () => {
  assert.deepEqual(labelNames('sum by (queue, consumer_grp) (queen_queue_lag_seconds{job="queen", queue=~"$queue"})').sort(), ['consumer_grp', 'job', 'queue']);
  assert.deepEqual(metricNames('histogram_quantile(0.99, sum by (le) (rate(queen_http_request_duration_seconds_bucket{x="1"}[5m]))) + up{job="q"}').sort(), ['queen_http_request_duration_seconds_bucket', 'up']);
});

