/**
 * The failover run's output: one JSON line per fault on stdout, then (unless --json-only) an aligned table,
 * the same table as a markdown block for docs/performance.md, the error and duplicate details, and the
 * verdict.
 */
import type { FailoverOptions, Fault } from './options.js';

/** Everything measured for one fault. */
export interface FaultResult {
  fault: Fault;
  oldPrimary: string;
  newPrimary: string | null;
  /** Seconds from the fault to the new primary reporting itself writable (monitor events). */
  promotionS: number;
  /** Seconds from the fault to the monitor marking the old primary unhealthy. */
  detectionS: number;
  timeline: string[];
  /** Seconds from the fault to the first committed push on the new primary (faults.ts, recoveryS). */
  firstPushS: number;
  /** Seconds from the fault to the first pop that returned messages from the new primary. */
  firstPopS: number;
  pushed: number;
  delivered: number;
  lost: number;
  skipped: number;
  reordered: number;
  /** Messages delivered more than once. */
  duplicates: number;
  redeliveries: number;
  duplicatesExplained: number;
  duplicatesUnexplained: number;
  duplicateCauses: Record<string, number>;
  clientErrors: number;
  errorKinds: Record<string, number>;
  warnings: Record<string, number>;
  itemStatuses: Record<string, number>;
  ackUnanswered: number;
  /** Seconds until the old primary was back as the standby (NaN when not brought back). */
  rejoinS: number;
  brokerExits: number;
  examples: Record<string, string[]>;
  checks: Record<string, boolean>;
}

function seconds(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(1)} s` : 'n/a';
}

/** The table's header and rows. */
export function tableRows(results: readonly FaultResult[]): string[][] {
  const header = ['fault', 'engine promotion', 'first push', 'first pop', 'lost', 'reordered', 'duplicates (unacked leases)',
    'client errors', 'messages'];
  return [header, ...results.map((r) => [
    r.fault, seconds(r.promotionS), seconds(r.firstPushS), seconds(r.firstPopS), String(r.lost), String(r.reordered),
    `${r.redeliveries} (${r.duplicatesExplained})`, String(r.clientErrors), String(r.pushed),
  ])];
}

/** The table as markdown. */
export function markdownTable(results: readonly FaultResult[]): string {
  const [header, ...rows] = tableRows(results);
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header!), line(header!.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

function aligned(rows: readonly string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')).join('\n');
}

function counts(record: Record<string, number>): string {
  const entries = Object.entries(record);
  return entries.length === 0 ? 'none' : entries.map(([label, n]) => `${label} x${n}`).join('; ');
}

/** Prints the JSON lines, the table, the markdown block and the details. */
export function printReport(results: readonly FaultResult[], options: FailoverOptions, uri: string, folder: string): void {
  for (const result of results) {
    process.stdout.write(`${JSON.stringify({ scenario: 'failover', ...result },
      (_key, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v))}\n`);
  }
  if (options.jsonOnly) return;
  const out = (line = ''): void => void process.stdout.write(`${line}\n`);
  out();
  out(aligned(tableRows(results)));
  out();
  out('```markdown');
  out(markdownTable(results));
  out('```');
  out();
  out(`database URL: ${uri}; ${options.rate > 0 ? `${options.rate} msgs/s from ` : ''}${options.producers} producers x batch 10, ${options.consumers} consumers x batch 50, lease 5 s; ` +
    `${options.beforeS} s of load before each fault, ${options.afterS} s after the promotion` +
    `${options.faults.includes('stall') ? `; stall ${options.stallS} s` : ''}`);
  for (const r of results) {
    out(`${r.fault}: ${r.oldPrimary} -> ${r.newPrimary ?? 'none'}; monitor marked ${r.oldPrimary} unhealthy after ${seconds(r.detectionS)}; ` +
      `states: ${r.timeline.join(', ') || 'none'}; old primary back as standby after ${seconds(r.rejoinS)}`);
    out(`${r.fault}: delivered ${r.delivered} of ${r.pushed}; push item answers: ${counts(r.itemStatuses)}; skipped ${r.skipped}; ` +
      `${r.duplicates} messages delivered twice or more (${r.redeliveries} redeliveries: ${r.duplicatesExplained} after an unacked lease, ` +
      `${r.duplicatesUnexplained} unexplained)${Object.keys(r.duplicateCauses).length > 0 ? `; causes: ${counts(r.duplicateCauses)}` : ''}`);
    out(`${r.fault}: client-visible errors: ${counts(r.errorKinds)}; SDK warnings: ${counts(r.warnings)}` +
      `${r.ackUnanswered > 0 ? `; ${r.ackUnanswered} acks never answered` : ''}${r.brokerExits > 0 ? `; ${r.brokerExits} broker exits` : ''}`);
    const failed = Object.entries(r.checks).filter(([, ok]) => !ok).map(([name]) => name);
    out(`${r.fault}: ${failed.length === 0 ? 'PASSED' : `FAILED (${failed.join(', ')}); examples ${JSON.stringify(r.examples)}`}`);
  }
  out(`logs in ${folder}`);
}
