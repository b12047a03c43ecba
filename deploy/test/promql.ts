/**
 * What the deploy tests need to know about the PromQL of the alert rules and the Grafana dashboard: which metric
 * families an expression reads and which label names it uses. Not a PromQL parser: metric names are recognised
 * by their prefixes (every family the broker exposes starts with queen_, process_ or nodejs_; `up` is
 * Prometheus' own), and label names by where they stand (inside a selector's braces, in by/on/unless lists).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Labels every scraped series carries (added by Prometheus) or that a histogram's buckets carry. */
export const SCRAPE_LABELS = new Set(['job', 'instance', 'le']);

/** One PromQL expression and where it comes from (for messages). */
export interface Expression {
  where: string;
  expr: string;
}

/** Metric names read by `expr`, histogram and summary suffixes kept (`_bucket`). */
export function metricNames(expr: string): string[] {
  const names = new Set<string>();
  for (const match of expr.matchAll(/\b(?:queen|process|nodejs)_[a-zA-Z0-9_]+\b|\bup\b(?=\s*\{)/g)) names.add(match[0]);
  return [...names];
}

/** Label names used in `expr`: in selectors (`{queue=~"x"}`) and in grouping or matching lists (`by (queue)`). */
export function labelNames(expr: string): string[] {
  const labels = new Set<string>();
  for (const selector of expr.matchAll(/\{([^}]*)\}/g)) {
    // Grafana's legend-like templates never reach here; a selector is name op "value" pairs.
    for (const matcher of selector[1]!.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*"/g)) labels.add(matcher[1]!);
  }
  for (const list of expr.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g)) {
    for (const name of list[1]!.split(',').map((s) => s.trim()).filter(Boolean)) labels.add(name);
  }
  return [...labels];
}

/** The expressions of the alert rules file, one per rule. */
export function ruleExpressions(file = path.join(ROOT, 'deploy/prometheus/queen-alerts.yml')): Array<Expression & { alert: string; annotations: Record<string, string> }> {
  const doc = parse(fs.readFileSync(file, 'utf8')) as { groups: Array<{ rules: Array<{ alert: string; expr: string; annotations: Record<string, string> }> }> };
  return doc.groups.flatMap((group) => group.rules.map((rule) => ({ where: `alert ${rule.alert}`, alert: rule.alert, expr: rule.expr, annotations: rule.annotations })));
}

/** A Grafana dashboard as far as the tests read it. */
export interface Dashboard {
  uid: string;
  title: string;
  panels: Array<{ id: number; type: string; title: string; datasource?: { uid: string }; targets?: Array<{ expr: string; datasource?: { uid: string } }> }>;
  templating: { list: Array<{ name: string; type: string; query: unknown; datasource?: { uid: string } }> };
}

/** The dashboard of deploy/grafana. */
export function dashboard(file = path.join(ROOT, 'deploy/grafana/queen-dashboard.json')): Dashboard {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Dashboard;
}

/** The expressions of the dashboard: every panel target and every query variable. */
export function dashboardExpressions(board: Dashboard = dashboard()): Expression[] {
  const panels = board.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}"`, expr: target.expr })));
  const variables = board.templating.list
    .filter((variable) => variable.type === 'query')
    .map((variable) => ({ where: `variable $${variable.name}`, expr: (variable.query as { query: string }).query }));
  return [...panels, ...variables];
}
