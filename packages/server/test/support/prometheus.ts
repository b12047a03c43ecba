/**
 * A strict parser of the Prometheus text exposition format 0.0.4, for tests: it throws on anything a
 * Prometheus server would reject or misread, so "the output parses" is an assertion that can fail.
 *
 * Checked: line syntax (HELP, TYPE, samples with optional timestamp), metric and label name syntax, label
 * value escapes (\\, \", \n only), float values (NaN, +Inf, -Inf included), at most one HELP and one TYPE per
 * family and TYPE before its samples, samples of a family contiguous, no duplicate series, counters
 * non-negative, histograms complete (cumulative buckets with `le`, a `+Inf` bucket equal to `_count`, `_sum`).
 */

/** One sample line. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One metric family: its type, help text and samples in order. */
export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string | null;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** A sample value as Prometheus reads it (Go's ParseFloat: NaN and Inf in any case, e.g. prom-client's `Nan`). */
function parseValue(text: string, line: number): number {
  if (/^nan$/i.test(text)) return NaN;
  if (/^\+?inf(inity)?$/i.test(text)) return Infinity;
  if (/^-inf(inity)?$/i.test(text)) return -Infinity;
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new Error(`line ${line}: invalid value ${JSON.stringify(text)}`);
  return Number(text);
}

function parseLabels(text: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    if (eq === -1) throw new Error(`line ${line}: label without value`);
    const name = text.slice(i, eq).trim();
    if (!LABEL_NAME.test(name)) throw new Error(`line ${line}: invalid label name ${JSON.stringify(name)}`);
    if (name in labels) throw new Error(`line ${line}: duplicate label ${name}`);
    if (text[eq + 1] !== '"') throw new Error(`line ${line}: label value of ${name} is not quoted`);
    let value = '';
    let j = eq + 2;
    for (;;) {
      const c = text[j];
      if (c === undefined) throw new Error(`line ${line}: unterminated label value of ${name}`);
      if (c === '"') break;
      if (c === '\\') {
        const next = text[j + 1];
        if (next === '\\' || next === '"') value += next;
        else if (next === 'n') value += '\n';
        else throw new Error(`line ${line}: invalid escape \\${next ?? ''} in label ${name}`);
        j += 2;
        continue;
      }
      if (c === '\n') throw new Error(`line ${line}: raw newline in label ${name}`);
      value += c;
      j += 1;
    }
    labels[name] = value;
    i = j + 1;
    if (i < text.length) {
      if (text[i] !== ',') throw new Error(`line ${line}: expected , after label ${name}`);
      i += 1;
    }
  }
  return labels;
}

/** The family a sample name belongs to (histogram and summary samples carry suffixes). */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  for (const suffix of ['', '_bucket', '_sum', '_count']) {
    if (suffix !== '' && !name.endsWith(suffix)) continue;
    const family = families.get(name.slice(0, name.length - suffix.length));
    if (family !== undefined && (suffix === '' || family.type === 'histogram' || family.type === 'summary')) return family;
  }
  return undefined;
}

function checkHistogram(family: Family): void {
  const series = new Map<string, { buckets: Array<[number, number]>; sum?: number; count?: number }>();
  for (const s of family.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${family.name}: bucket without le`);
      entry.buckets.push([parseValue(le, 0), s.value]);
    } else if (s.name.endsWith('_sum')) entry.sum = s.value;
    else if (s.name.endsWith('_count')) entry.count = s.value;
    else throw new Error(`${family.name}: unexpected histogram sample ${s.name}`);
  }
  for (const [key, entry] of series) {
    if (entry.sum === undefined || entry.count === undefined) throw new Error(`${family.name}${key}: _sum or _count missing`);
    const sorted = [...entry.buckets].sort((a, b) => a[0] - b[0]);
    const inf = sorted[sorted.length - 1];
    if (inf === undefined || inf[0] !== Infinity) throw new Error(`${family.name}${key}: no +Inf bucket`);
    if (inf[1] !== entry.count) throw new Error(`${family.name}${key}: +Inf bucket ${inf[1]} != count ${entry.count}`);
    for (let i = 1; i < sorted.length; i += 1) {
      if (sorted[i]![1] < sorted[i - 1]![1]) throw new Error(`${family.name}${key}: buckets are not cumulative`);
    }
  }
}

/** Parses an exposition; throws with the line number on the first violation. */
export function parsePrometheusText(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('exposition must end with a newline');
  const families = new Map<string, Family>();
  const seriesSeen = new Set<string>();
  let current: Family | null = null;
  const closed = new Set<string>();
  const declare = (name: string): Family => {
    let family = families.get(name);
    if (family === undefined) {
      if (closed.has(name)) throw new Error(`family ${name} declared again after its samples`);
      family = { name, type: 'untyped', help: null, samples: [] };
      families.set(name, family);
    }
    return family;
  };
  text.slice(0, -1).split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    const meta = /^#\s*(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(raw);
    if (meta !== null) {
      const [, kind, name, rest = ''] = meta;
      if (!METRIC_NAME.test(name!)) throw new Error(`line ${line}: invalid metric name ${name}`);
      const family = declare(name!);
      if (kind === 'HELP') {
        if (family.help !== null) throw new Error(`line ${line}: second HELP for ${name}`);
        family.help = rest;
      } else {
        if (family.samples.length > 0) throw new Error(`line ${line}: TYPE of ${name} after its samples`);
        if (!TYPES.has(rest.trim())) throw new Error(`line ${line}: unknown type ${rest}`);
        family.type = rest.trim() as Family['type'];
      }
      return;
    }
    if (raw.startsWith('#')) return;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?$/.exec(raw);
    if (sample === null) throw new Error(`line ${line}: not a sample: ${raw}`);
    const [, name, labelText = '', valueText] = sample;
    const labels = parseLabels(labelText, line);
    const value = parseValue(valueText!, line);
    const family = familyOf(name!, families) ?? declare(name!);
    if (current !== null && current !== family) closed.add(current.name);
    if (closed.has(family.name)) throw new Error(`line ${line}: samples of ${family.name} are not contiguous`);
    current = family;
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seriesSeen.has(key)) throw new Error(`line ${line}: duplicate series ${key}`);
    seriesSeen.add(key);
    if (family.type === 'counter' && !(value >= 0)) throw new Error(`line ${line}: counter ${name} is ${value}`);
    family.samples.push({ name: name!, labels, value });
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

/** The value of the one sample of `family` whose labels include `labels`, or undefined. */
export function sampleValue(families: Map<string, Family>, family: string, labels: Record<string, string> = {}, name = family): number | undefined {
  const matches = (families.get(family)?.samples ?? []).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (matches.length > 1) throw new Error(`${family}${JSON.stringify(labels)} matches ${matches.length} samples`);
  return matches[0]?.value;
}
