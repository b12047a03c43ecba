/**
 * --profile: where the broker's own CPU goes per request, from a V8 CPU profile (`node --cpu-prof`).
 *
 * Design: the bench starts the broker with `--cpu-prof --cpu-prof-dir DIR`; node writes the profile when
 * the broker exits. Each sample is attributed to a stage by its innermost frame that a rule recognises
 * (a builtin such as JSON.parse has no frame of its own, so its time lands on the broker function that
 * called it: `parseJsonObject` is "body read + JSON parse", `send` is "response"), and to a route by the
 * innermost frame in http/routes/<name>.js. Only samples inside the scenarios' measured windows count:
 * V8's profile clock and process.hrtime are both CLOCK_MONOTONIC, so the bench marks a window with
 * hrtime (µs) and the summary keeps samples whose timestamp falls in one. Idle time (waiting for the
 * socket or PostgreSQL) is reported apart: it is not the broker's cost.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { QueenClient, RequestCounts } from './http.js';

/** A node of a .cpuprofile. */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** The parts of a .cpuprofile the summary reads. */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The stages, in table order. */
export const STAGES = [
  'HTTP parse + dispatch', 'body read + JSON parse', 'validation', 'core', 'store + pg driver',
  'response', 'socket I/O', 'logging + metrics', 'GC', 'other', 'idle',
] as const;

/** One stage. */
export type Stage = (typeof STAGES)[number];

type Rule = [Stage, (url: string, name: string) => boolean];

/** First match wins, for one frame; frames without a match inherit their caller's stage. */
const RULES: Rule[] = [
  ['idle', (url, name) => url === '' && name === '(idle)'],
  ['GC', (url, name) => url === '' && name === '(garbage collector)'],
  ['body read + JSON parse', (url, name) => url.includes('/dist/http/body.js') || (url.includes('/dist/http/server.js') && name === 'readBody')],
  ['response', (url, name) => (url.includes('/dist/http/server.js') && name === 'send') || url.includes('_http_outgoing')
    || /Result?Wire$|wire|Body$/i.test(name) && url.includes('/dist/http/routes/')],
  ['validation', (url) => url.includes('/dist/http/routes/') || url.includes('/dist/http/query.js') || url.includes('/dist/http/text.js')],
  ['HTTP parse + dispatch', (url) => url.includes('/dist/http/') || url.includes('_http_server') || url.includes('_http_common')
    || url.includes('_http_incoming') || url.includes('/dist/auth/')],
  ['logging + metrics', (url) => url.includes('/dist/metrics/') || url.includes('/dist/logger') || url.includes('/pino')],
  ['store + pg driver', (url) => url.includes('/dist/store/') || /node_modules\/pg(-[a-z]+)?\//.test(url)],
  ['core', (url) => url.includes('/dist/core/') || url.includes('/dist/buffer/')],
  ['socket I/O', (url) => url.startsWith('node:net') || url.startsWith('node:internal/stream') || url.startsWith('node:stream')
    || url.includes('stream_base_commons')],
];

function classify(url: string, name: string): Stage | null {
  for (const [stage, test] of RULES) if (test(url, name)) return stage;
  return null;
}

/** A window of the profile to count, in CLOCK_MONOTONIC microseconds (process.hrtime.bigint() / 1000). */
export interface ProfileWindow {
  startUs: number;
  endUs: number;
}

/** CPU per stage and per route, in microseconds, over the windows. */
export interface ProfileSummary {
  byStage: Record<Stage, number>;
  /** Non-idle time under each route module (push, pop, ack ...); 'none' outside any handler. */
  byRoute: Record<string, number>;
  /** Wall time the windows covered, in microseconds. */
  windowUs: number;
  /** The functions with the most non-idle self time in the windows, most first: `name file:line`, µs. */
  top: [string, number][];
}

const TOP_FUNCTIONS = 12;

/** Summarises a profile over `windows` (all of it when empty). */
export function summarizeProfile(profile: CpuProfile, windows: readonly ProfileWindow[]): ProfileSummary {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const stageOf = new Map<number, Stage>();
  const routeOf = new Map<number, string>();
  const resolve = (id: number): [Stage, string] => {
    const known = stageOf.get(id);
    if (known !== undefined) return [known, routeOf.get(id) ?? 'none'];
    const node = byId.get(id);
    const up = parent.get(id);
    const [parentStage, parentRoute] = up === undefined ? (['other', 'none'] as [Stage, string]) : resolve(up);
    const url = node?.callFrame.url ?? '';
    const stage = classify(url, node?.callFrame.functionName ?? '') ?? parentStage;
    const route = /\/dist\/http\/routes\/([a-z-]+)\.js$/.exec(url)?.[1] ?? parentRoute;
    stageOf.set(id, stage);
    routeOf.set(id, route);
    return [stage, route];
  };
  const byStage = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  const byRoute: Record<string, number> = {};
  const self = new Map<number, number>();
  let at = profile.startTime;
  const inWindow = (t: number): boolean => windows.length === 0 || windows.some((w) => t >= w.startUs && t < w.endUs);
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    // A sample's delta is the time since the previous one: charge it to this sample's stack.
    if (!inWindow(at)) continue;
    const id = profile.samples[i] ?? 0;
    const [stage, route] = resolve(id);
    byStage[stage] += delta;
    if (stage === 'idle') continue;
    byRoute[route] = (byRoute[route] ?? 0) + delta;
    self.set(id, (self.get(id) ?? 0) + delta);
  }
  const byFunction = new Map<string, number>();
  for (const [id, us] of self) {
    const frame = byId.get(id)?.callFrame;
    const where = (frame?.url ?? '').replace(/^.*\/(dist|node_modules)\//, '$1/');
    const key = `${frame?.functionName || '(anonymous)'} ${where}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, TOP_FUNCTIONS);
  const windowUs = windows.length === 0 ? at - profile.startTime : windows.reduce((sum, w) => sum + (w.endUs - w.startUs), 0);
  return { byStage, byRoute, windowUs, top };
}

/** The newest .cpuprofile in `dir`, parsed; null when there is none. */
export function readNewestProfile(dir: string): CpuProfile | null {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f)).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return files[0] === undefined ? null : (JSON.parse(fs.readFileSync(files[0], 'utf8')) as CpuProfile);
}

/** The current CLOCK_MONOTONIC time in microseconds, comparable with a V8 profile's timestamps. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * The stage table as markdown: µs of broker CPU per request and per message, and the share. The profile's
 * non-idle samples give the shares; the broker's CPU time from /proc (`cpuUs`) gives the total, because on
 * a loaded machine a sample's interval also covers time the thread was runnable but not running.
 */
export function renderProfileTable(label: string, summary: ProfileSummary, cpuUs: number, requests: number, messages: number): string {
  const sampled = STAGES.filter((s) => s !== 'idle').reduce((sum, s) => sum + summary.byStage[s], 0);
  const total = Number.isFinite(cpuUs) && cpuUs > 0 ? cpuUs : sampled;
  const scale = sampled > 0 ? total / sampled : 0;
  const per = (us: number, n: number): string => (n > 0 ? ((us * scale) / n).toFixed(1) : 'n/a');
  const lines = [
    `${label}: ${requests} requests, ${messages} messages, broker CPU ${(total / 1000).toFixed(0)} ms over ` +
      `${(summary.windowUs / 1000).toFixed(0)} ms (${((total / summary.windowUs) * 100).toFixed(0)} % of a core; ` +
      `profile samples not idle: ${(sampled / 1000).toFixed(0)} ms)`,
    '',
    '| stage | µs per request | µs per message | share of CPU |',
    '|---|---:|---:|---:|',
    ...STAGES.filter((s) => s !== 'idle').map((s) => `| ${s} | ${per(summary.byStage[s], requests)} | ` +
      `${per(summary.byStage[s], messages)} | ${sampled > 0 ? ((summary.byStage[s] / sampled) * 100).toFixed(1) : '0'} % |`),
    `| **total** | ${per(sampled, requests)} | ${per(sampled, messages)} | 100 % |`,
    '',
    `by route (CPU under the handler's module; 'none' = outside any handler): ` +
      Object.entries(summary.byRoute).sort((a, b) => b[1] - a[1])
        .map(([route, us]) => `${route} ${((us * scale) / 1000).toFixed(0)} ms`).join(', '),
    `top functions by self time (share of CPU): ` +
      summary.top.map(([name, us]) => `${name} ${sampled > 0 ? ((us / sampled) * 100).toFixed(1) : '0'} %`).join('; '),
  ];
  return lines.join('\n');
}

/** What a scenario reports for --profile: its measured window and what was sent in it. */
export interface ProfiledSpan {
  window: ProfileWindow;
  requests: RequestCounts;
  /** Messages pushed or consumed in the window (the scenario's unit). */
  messages: number;
  /** The broker's CPU time over the window (µs, from /proc), NaN when unknown. */
  cpuUs: number;
}

/**
 * Starts a measured window on `client`; the returned function closes it with the window's message count.
 * `brokerCpuUs` reads the broker's CPU time (ScenarioContext.brokerCpuUs).
 */
export function profileSpan(client: QueenClient, brokerCpuUs: () => number): (messages: number) => ProfiledSpan {
  const startUs = monotonicUs();
  const cpuStart = brokerCpuUs();
  const before = { ...client.sent };
  return (messages) => ({
    cpuUs: brokerCpuUs() - cpuStart,
    window: { startUs, endUs: monotonicUs() },
    requests: { push: client.sent.push - before.push, pop: client.sent.pop - before.pop, ack: client.sent.ack - before.ack },
    messages,
  });
}
