/**
 * Resource sampling of the brokers the tool started: peak RSS of each broker process and the CPU used by
 * the brokers (a broker's process and its worker processes, QUEEN_WORKERS), by PostgreSQL (a broker's
 * descendants named `postgres`: the embedded postmaster and its backends; or, with an external database on
 * this host, its postmaster's tree, found from a backend's parent pid, and on a Citus coordinator each local
 * worker's too, reported per node as well) and by this load generator, over one
 * scenario run. CPU per message is the CPU of the window divided by the messages of the window.
 *
 * Design: Linux /proc only. Every 500 ms (and once at start and stop) the sampler reads VmRSS from
 * /proc/<pid>/status of each broker and utime+stime from /proc/<pid>/stat of each broker and of every
 * process whose parent chain leads to one. CPU is the sum over processes of (last ticks seen - ticks at
 * the start, or 0 for processes born during the run), so a backend that exits between two samples loses at
 * most 500 ms of its CPU. CPU is reported in percent of one core (200 = both cores of a 2-core box busy).
 * otherCpuPct is the machine's busy CPU (/proc/stat) minus those three: competing work, i.e. noise.
 * Without /proc (or with --url, where no pid is known) the figures are NaN, which the report prints as null.
 */
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';

const INTERVAL_MS = 500;

/** The figures of one sampled interval. */
export interface ResourceFigures {
  /** Peak VmRSS of any one broker process, MiB. */
  rssPeakMb: number;
  /** CPU of the broker processes (workers included), percent of one core. */
  brokerCpuPct: number;
  /** CPU of PostgreSQL (the embedded one, or an external one on this host), percent of one core. */
  pgCpuPct: number;
  /** CPU time of the broker processes over the window, µs. */
  brokerCpuUs: number;
  /** CPU time of PostgreSQL over the window, µs. */
  pgCpuUs: number;
  /** CPU of this load generator, percent of one core. */
  benchCpuPct: number;
  /**
   * CPU of everything else on the machine (all busy CPU from /proc/stat minus the three above), percent of
   * one core: other work competing for the same cores, i.e. how noisy the measurement was.
   */
  otherCpuPct: number;
}

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** Parses /proc/<pid>/stat: command name, parent pid and utime+stime in clock ticks; null when the process is gone. */
function readStat(pid: number): { comm: string; ppid: number; ticks: number } | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may contain spaces: split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
  const ppid = Number(fields[1]);
  const ticks = Number(fields[11]) + Number(fields[12]);
  const comm = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
  return Number.isFinite(ppid) && Number.isFinite(ticks) ? { comm, ppid, ticks } : null;
}

/** The parent of a process (for an external PostgreSQL: a backend's parent is its postmaster); null when unknown. */
export function parentPid(pid: number): number | null {
  return readStat(pid)?.ppid ?? null;
}

/** CPU time (user + system) a process has used, in microseconds; NaN when it is gone or /proc is missing. */
export function processCpuUs(pid: number): number {
  const stat = readStat(pid);
  return stat === null ? NaN : (stat.ticks * 1e6) / clockTicks();
}

/**
 * CPU time a process's threads have run, in microseconds, from the scheduler's nanosecond clock
 * (/proc/PID/task/TID/schedstat, first field): no 10 ms ticks, so a phase of a few hundred ms is resolved to
 * well under 1 %. Threads that exited are not counted (a broker's threads live as long as it does); falls back
 * to `processCpuUs` where schedstat is missing.
 */
export function processRunUs(pid: number): number {
  try {
    let ns = 0;
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ', 1)[0]);
      } catch {
        // The thread ended between the listing and the read: its time is gone either way.
      }
    }
    return Number.isFinite(ns) && ns > 0 ? ns / 1000 : processCpuUs(pid);
  } catch {
    return processCpuUs(pid);
  }
}

/** Busy and total clock ticks of the whole machine since boot (/proc/stat); null when unreadable. */
function machineTicks(): { busy: number; total: number } | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    const values = line.trim().split(/\s+/).slice(1, 9).map(Number);
    if (values.length < 5 || values.some((v) => !Number.isFinite(v))) return null;
    const total = values.reduce((sum, v) => sum + v, 0);
    const idle = (values[3] ?? 0) + (values[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** VmRSS of a process in MiB; NaN when unreadable. */
export function rssMb(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? NaN : Number(match[1]) / 1024;
  } catch {
    return NaN;
  }
}

/** Every pid currently in /proc with its stat. */
function allProcesses(): Map<number, { comm: string; ppid: number; ticks: number }> {
  const result = new Map<number, { comm: string; ppid: number; ticks: number }>();
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return result;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat !== null) result.set(Number(entry), stat);
  }
  return result;
}

/** Samples the brokers named by `brokerPids()` (read at every sample: a broker may start mid-run). */
export class ResourceSampler {
  private timer: NodeJS.Timeout | undefined;
  private rssPeak = NaN;
  private readonly startTicks = new Map<number, number>();
  private readonly lastTicks = new Map<number, { ticks: number; broker: boolean; node: string | null }>();
  private startedAt = 0;
  private benchStart = process.cpuUsage();
  private machineStart: { busy: number; total: number } | null = null;
  private sampled = false;
  private result: ResourceFigures | undefined;

  /**
   * `brokerPids` lists the pids of the brokers this tool started (empty with --url); `postmasters` the
   * postmasters of an external PostgreSQL on this host by node label (a Citus coordinator and its workers;
   * empty: none, or not on this host).
   */
  constructor(private readonly brokerPids: () => readonly number[], private readonly postmasters: () => ReadonlyMap<number, string> = () => new Map()) {}

  /** CPU µs of each external PostgreSQL node over the window (after `stop`); empty for the embedded one. */
  nodeCpuUs(): Map<string, number> {
    const nodes = new Map<string, number>();
    for (const [pid, last] of this.lastTicks) {
      if (last.node === null) continue;
      nodes.set(last.node, (nodes.get(last.node) ?? 0) + ((last.ticks - (this.startTicks.get(pid) ?? 0)) * 1e6) / clockTicks());
    }
    return nodes;
  }

  /** Starts sampling (takes the first sample now). */
  start(): void {
    this.startedAt = performance.now();
    this.benchStart = process.cpuUsage();
    this.machineStart = machineTicks();
    this.sample(true);
    this.timer = setInterval(() => this.sample(false), INTERVAL_MS);
    this.timer.unref();
  }

  /** Takes a last sample, stops, and returns the figures of the interval (the same ones on later calls). */
  stop(): ResourceFigures {
    this.result ??= this.finish();
    return this.result;
  }

  private finish(): ResourceFigures {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.sample(false);
    const seconds = (performance.now() - this.startedAt) / 1000;
    const bench = process.cpuUsage(this.benchStart);
    const benchCpuPct = seconds > 0 ? ((bench.user + bench.system) / 1e6 / seconds) * 100 : NaN;
    const machineEnd = machineTicks();
    const machineBusyPct = this.machineStart === null || machineEnd === null || seconds <= 0 ? NaN
      : ((machineEnd.busy - this.machineStart.busy) / clockTicks() / seconds) * 100;
    if (!this.sampled) {
      return { rssPeakMb: NaN, brokerCpuPct: NaN, pgCpuPct: NaN, brokerCpuUs: NaN, pgCpuUs: NaN, benchCpuPct, otherCpuPct: NaN };
    }
    let broker = 0;
    let pg = 0;
    for (const [pid, last] of this.lastTicks) {
      const used = last.ticks - (this.startTicks.get(pid) ?? 0);
      if (last.broker) broker += used;
      else pg += used;
    }
    const pct = (ticks: number): number => (seconds > 0 ? (ticks / clockTicks() / seconds) * 100 : NaN);
    const brokerCpuPct = pct(broker);
    const pgCpuPct = pct(pg);
    const otherCpuPct = Math.max(0, machineBusyPct - brokerCpuPct - pgCpuPct - benchCpuPct);
    const us = (ticks: number): number => (ticks * 1e6) / clockTicks();
    return { rssPeakMb: this.rssPeak, brokerCpuPct, pgCpuPct, brokerCpuUs: us(broker), pgCpuUs: us(pg), benchCpuPct, otherCpuPct };
  }

  private sample(first: boolean): void {
    const brokers = this.brokerPids().filter((pid) => pid > 0);
    const postmasters = this.postmasters();
    if (brokers.length === 0 && postmasters.size === 0) return;
    const processes = allProcesses();
    if (processes.size === 0) return;
    this.sampled = true;
    for (const pid of brokers) {
      const rss = rssMb(pid);
      if (Number.isFinite(rss) && !(rss <= this.rssPeak)) this.rssPeak = rss;
    }
    const brokerSet = new Set(brokers);
    /** 'broker' (a broker or one of its workers), 'pg' (PostgreSQL, with its node when external), or null (not ours). */
    const kindOf = (pid: number): { kind: 'broker' | 'pg'; node: string | null } | null => {
      let postgres = false;
      for (let current = pid, hops = 0; current > 1 && hops < 64; hops++) {
        const node = postmasters.get(current);
        if (node !== undefined) return { kind: 'pg', node };
        const stat = processes.get(current);
        if (stat?.comm === 'postgres') postgres = true;
        if (brokerSet.has(current)) return { kind: postgres ? 'pg' : 'broker', node: null };
        if (stat === undefined) return null;
        current = stat.ppid;
      }
      return null;
    };
    for (const [pid, stat] of processes) {
      const owner = kindOf(pid);
      if (owner === null) continue;
      if (first) this.startTicks.set(pid, stat.ticks);
      else if (!this.startTicks.has(pid) && !this.lastTicks.has(pid)) this.startTicks.set(pid, 0);
      this.lastTicks.set(pid, { ticks: stat.ticks, broker: owner.kind === 'broker', node: owner.node });
    }
  }
}

/** CPU µs per message of a window (broker and PostgreSQL), as the figures every scenario reports beside msgs/s. */
export function cpuPerMessage(figures: ResourceFigures, messages: number): { brokerUsPerMsg: number; pgUsPerMsg: number } {
  const per = (us: number): number => (messages > 0 && Number.isFinite(us) ? Math.round((us / messages) * 10) / 10 : NaN);
  return { brokerUsPerMsg: per(figures.brokerCpuUs), pgUsPerMsg: per(figures.pgCpuUs) };
}

/** CPU µs per message of each PostgreSQL node (a Citus cluster on this host), as figures `pgUsPerMsg:<node>`. */
export function nodeCpuPerMessage(nodes: ReadonlyMap<string, number>, messages: number): Record<string, number> {
  return Object.fromEntries([...nodes].map(([node, us]) => [`pgUsPerMsg:${node}`, Math.round((us / messages) * 10) / 10]));
}

/** One line for a human summary: "broker RSS peak 120 MB; CPU broker 95%, PostgreSQL 80%, bench 30%". */
export function describeResources(figures: ResourceFigures): string {
  const n = (value: number, unit: string): string => (Number.isFinite(value) ? `${Math.round(value)}${unit}` : 'n/a');
  return `broker RSS peak ${n(figures.rssPeakMb, ' MB')}; CPU (% of one core) broker ${n(figures.brokerCpuPct, '%')}, ` +
    `PostgreSQL ${n(figures.pgCpuPct, '%')}, bench ${n(figures.benchCpuPct, '%')}, other processes ${n(figures.otherCpuPct, '%')}`;
}
