/**
 * A pg_auto_failover cluster on this machine: a monitor, a primary and a synchronous standby, each a
 * `pg_autoctl` service in its own process group, for the failover harness (run.ts) and its test.
 *
 * Design:
 * - Everything lives in one temp folder owned by the `postgres` user (as root, the services run as
 *   `postgres`, spawned with its uid/gid; otherwise as the current user): data directories monitor/, node1/,
 *   node2/, each service's log (<name>.log), and pg_autoctl's own configuration and state, which it keeps under
 *   XDG_CONFIG_HOME / XDG_DATA_HOME / XDG_RUNTIME_DIR, pointed into the folder so nothing is left elsewhere.
 * - Each service is `pg_autoctl create ... --run` (later `pg_autoctl run`) spawned detached: its keeper and
 *   its postmaster share one process group; PostgreSQL's children (backends, walsender ...) each run in a
 *   session of their own. A fault is a signal to the group and to every child of the postmaster
 *   (`signalNode`); `stop()` SIGKILLs every group, and backends exit when their postmaster is gone (also on
 *   the exit paths: `killNow()` is synchronous).
 * - Failover timing is tuned for a test (TUNING below): the monitor's GUCs by ALTER SYSTEM before the nodes
 *   register, the keepers' network partition timeout by `pg_autoctl config set` once they run.
 * - The standby's base backup waits for a checkpoint, which by default is spread over minutes: the harness
 *   issues CHECKPOINT on the primary while it waits for the standby.
 * - State and events are read from the monitor's tables (pgautofailover.node, pgautofailover.event: what
 *   `pg_autoctl show state` and `show events` print).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../broker-process.js';
import { sleep } from '../scenarios/common.js';
import { childrenOf, postgresUser, queryRows, queryValue, tryQueryValue } from './local.js';
import { findPgAutoctl, MONITOR_TUNING, KEEPER_TUNING, type PgAutoctlInstall } from './engine.js';

const run = promisify(execFile);

/** One node as the monitor sees it. */
export interface NodeState {
  id: number;
  name: string;
  port: number;
  reported: string;
  assigned: string;
  health: number;
}

/** One row of the monitor's event table. */
export interface EngineEvent {
  id: number;
  /** Wall-clock ms. */
  at: number;
  node: string;
  reported: string;
  goal: string;
  description: string;
}

interface Service {
  name: string;
  child: ChildProcess | undefined;
  /** The process group (the child's pid), -1 when not running. */
  pgid: number;
  port: number;
}

/** A running pg_auto_failover cluster. */
export class AutoFailoverCluster {
  private readonly services = new Map<string, Service>();
  private readonly owner: { uid: number; gid: number } | undefined;
  private readonly env: NodeJS.ProcessEnv;

  private constructor(readonly folder: string, private readonly install: PgAutoctlInstall,
    private readonly log: (line: string) => void) {
    this.owner = process.getuid?.() === 0 ? postgresUser() : undefined;
    const xdg = path.join(folder, 'xdg');
    this.env = {
      PATH: `${install.binDir}:${process.env['PATH'] ?? '/usr/bin:/bin'}`, HOME: folder, LANG: 'C.UTF-8',
      XDG_CONFIG_HOME: path.join(xdg, 'config'), XDG_DATA_HOME: path.join(xdg, 'data'), XDG_RUNTIME_DIR: path.join(xdg, 'run'),
      PG_CONFIG: path.join(install.binDir, 'pg_config'),
    };
  }

  /** Starts monitor, primary (node1) and standby (node2) in `folder` and waits until both are in state. */
  static async start(folder: string, log: (line: string) => void): Promise<AutoFailoverCluster> {
    const cluster = new AutoFailoverCluster(folder, findPgAutoctl(), log);
    try {
      await cluster.create();
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  private async create(): Promise<void> {
    const began = Date.now();
    for (const dir of ['xdg/config', 'xdg/data', 'xdg/run']) fs.mkdirSync(path.join(this.folder, dir), { recursive: true, mode: 0o700 });
    this.chownAll();
    const monitorPort = await freePort();
    this.spawnService('monitor', monitorPort, ['create', 'monitor', '--pgdata', this.dataDir('monitor'), '--pgport', String(monitorPort),
      '--hostname', '127.0.0.1', '--auth', 'trust', '--no-ssl', '--ssl-mode', 'disable', '--run']);
    await this.waitFor('the monitor to accept connections', 60_000, async () => (await tryQueryValue(monitorPort, 'pg_auto_failover', 'SELECT 1')) !== null);
    for (const [name, value] of Object.entries(MONITOR_TUNING)) await queryValue(monitorPort, 'pg_auto_failover', `ALTER SYSTEM SET ${name} = '${value}'`);
    await queryValue(monitorPort, 'pg_auto_failover', 'SELECT pg_reload_conf()');
    const monitorUri = `postgres://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover?sslmode=disable`;
    for (const name of ['node1', 'node2']) {
      const port = await freePort();
      this.spawnService(name, port, ['create', 'postgres', '--pgdata', this.dataDir(name), '--pgport', String(port), '--hostname', '127.0.0.1',
        '--name', name, '--dbname', 'queen', '--auth', 'trust', '--no-ssl', '--ssl-mode', 'disable', '--monitor', monitorUri, '--run']);
      if (name === 'node1') {
        await this.waitFor('node1 to be a primary', 90_000, async () => (await this.nodes()).some((n) => n.name === name && n.reported === 'single'));
      }
    }
    await this.waitHealthy(180_000);
    // A reload signals the keeper's children too: during the standby's base backup it would kill pg_basebackup.
    for (const name of ['node1', 'node2']) await this.configureKeeper(name);
    const standbyNames = await queryValue(this.services.get('node1')!.port, 'queen', 'SHOW synchronous_standby_names');
    this.log(`failover: pg_auto_failover cluster ready after ${((Date.now() - began) / 1000).toFixed(1)} s; ` +
      `primary's synchronous_standby_names = '${standbyNames}'`);
  }

  /** The data directory of a service. */
  dataDir(name: string): string {
    return path.join(this.folder, name);
  }

  /** The port of a service. */
  port(name: string): number {
    return this.services.get(name)?.port ?? -1;
  }

  /** The multi-host URL of the formation (`pg_autoctl show uri --formation default`), with user and password. */
  async uri(): Promise<string> {
    const { stdout } = await this.autoctl(['show', 'uri', '--pgdata', this.dataDir('monitor'), '--formation', 'default']);
    const uri = stdout.trim().split('\n').pop() ?? '';
    if (!uri.startsWith('postgres://')) throw new Error(`pg_autoctl show uri printed no URL: ${stdout.slice(0, 200)}`);
    return uri.replace('postgres://', 'postgres://postgres:postgres@');
  }

  /** The nodes as the monitor sees them. */
  async nodes(): Promise<NodeState[]> {
    const rows = await queryRows<{ id: number; name: string; port: number; reported: string; assigned: string; health: number }>(
      this.port('monitor'), 'pg_auto_failover',
      `SELECT nodeid::int AS id, nodename AS name, nodeport AS port, reportedstate::text AS reported, goalstate::text AS assigned,
              health FROM pgautofailover.node ORDER BY nodeid`);
    return rows ?? [];
  }

  /** The name of the node in state primary (reported and assigned), or undefined. */
  async primary(): Promise<string | undefined> {
    return (await this.nodes()).find((n) => n.reported === 'primary' && n.assigned === 'primary')?.name;
  }

  /** Waits until one node is primary and one is secondary (reported and assigned). */
  async waitHealthy(timeoutMs: number): Promise<void> {
    await this.waitFor('a primary and a secondary', timeoutMs, async () => {
      const nodes = await this.nodes();
      const done = (state: string): boolean => nodes.some((n) => n.reported === state && n.assigned === state);
      if (done('primary') && done('secondary')) return true;
      // A standby's base backup waits for a checkpoint on the primary: make it immediate.
      const primary = nodes.find((n) => ['wait_primary', 'primary', 'single'].includes(n.reported));
      if (primary !== undefined && nodes.some((n) => n.reported === 'wait_standby' || n.assigned === 'catchingup')) {
        await tryQueryValue(primary.port, 'queen', 'CHECKPOINT');
      }
      return false;
    });
  }

  /** Monitor events after `afterId`, oldest first. */
  async events(afterId = 0): Promise<EngineEvent[]> {
    const rows = await queryRows<{ id: string; at: Date; node: string; reported: string; goal: string; description: string }>(
      this.port('monitor'), 'pg_auto_failover',
      `SELECT eventid::text AS id, eventtime AS at, nodename AS node, reportedstate::text AS reported, goalstate::text AS goal,
              description FROM pgautofailover.event WHERE eventid > $1 ORDER BY eventid`, [afterId]);
    return (rows ?? []).map((r) => ({ ...r, id: Number(r.id), at: r.at.getTime() }));
  }

  /**
   * Sends `signal` to every process of a node: its process group (keeper and postmaster) and every child of
   * the postmaster. PostgreSQL puts each child (backends, walsender, checkpointer ...) in a session of its
   * own, so a signal to the group alone would leave the backends running: existing connections would keep
   * committing. The postmaster is signalled first, so it starts no child meanwhile.
   */
  signalNode(name: string, signal: NodeJS.Signals): void {
    const service = this.services.get(name);
    if (service === undefined || service.pgid <= 0) throw new Error(`${name} is not running`);
    const postmaster = this.postmasterPid(name);
    const children = childrenOf(postmaster);
    for (const pid of [postmaster, ...children]) {
      try {
        process.kill(pid, signal);
      } catch {
        // exited meanwhile
      }
    }
    process.kill(-service.pgid, signal);
    if (signal === 'SIGKILL') service.pgid = -1;
  }

  /** The postmaster pid of a node (from postmaster.pid). */
  postmasterPid(name: string): number {
    return Number(fs.readFileSync(path.join(this.dataDir(name), 'postmaster.pid'), 'utf8').split('\n')[0]);
  }

  /** Starts a stopped node's service again (`pg_autoctl run`): it rejoins as a standby. */
  restartNode(name: string): void {
    this.spawnService(name, this.port(name), ['run', '--pgdata', this.dataDir(name)]);
  }

  /** `pg_autoctl perform switchover`: resolves when the command returns (the new primary is in place). */
  async switchover(): Promise<void> {
    await this.autoctl(['perform', 'switchover', '--pgdata', this.dataDir('monitor'), '--formation', 'default'], 120_000);
  }

  /** SIGKILLs every service's process group (nodes first) and waits for them to exit. */
  async stop(): Promise<void> {
    const exits: Promise<void>[] = [];
    for (const name of ['node1', 'node2', 'monitor']) {
      const service = this.services.get(name);
      const child = service?.child;
      if (child !== undefined && child.exitCode === null && child.signalCode === null) {
        exits.push(new Promise((resolve) => child.once('exit', () => resolve())));
      }
    }
    this.killNow();
    await Promise.race([Promise.all(exits), sleep(10_000)]);
  }

  /** Removes the databases (after stop()); the logs stay. */
  removeData(): void {
    for (const dir of ['monitor', 'node1', 'node2', 'backup', 'xdg']) {
      fs.rmSync(path.join(this.folder, dir), { recursive: true, force: true, maxRetries: 5 });
    }
  }

  /** Synchronous SIGKILL of every process group and PostgreSQL's children (also stopped ones), for exit paths. */
  killNow(): void {
    for (const service of this.services.values()) {
      if (service.pgid <= 0) continue;
      try {
        // Stopped backends (a stall) would never notice their postmaster's death: kill them too.
        const postmaster = this.postmasterPid(service.name);
        for (const pid of [postmaster, ...childrenOf(postmaster)]) process.kill(pid, 'SIGKILL');
      } catch {
        // no postmaster, or gone meanwhile
      }
      try {
        process.kill(-service.pgid, 'SIGKILL');
      } catch {
        // already gone
      }
      service.pgid = -1;
    }
  }

  private spawnService(name: string, port: number, args: string[]): void {
    const out = fs.openSync(path.join(this.folder, `${name}.log`), 'a');
    try {
      const child = spawn(this.install.pgAutoctl, args, {
        cwd: this.folder, env: this.env, detached: true, stdio: ['ignore', out, out], ...(this.owner ?? {}),
      });
      child.on('error', (error) => this.log(`failover: ${name}: ${error.message}`));
      this.services.set(name, { name, child, pgid: child.pid ?? -1, port });
    } finally {
      fs.closeSync(out);
    }
  }

  /** Sets KEEPER_TUNING once the node's configuration file exists (the running keeper reloads it). */
  private async configureKeeper(name: string): Promise<void> {
    for (const [key, value] of Object.entries(KEEPER_TUNING)) {
      let failure = '';
      await this.waitFor(`${name}'s keeper configuration`, 30_000, async () => {
        try {
          await this.autoctl(['config', 'set', '--pgdata', this.dataDir(name), key, String(value)]);
          return true;
        } catch (error) {
          failure = error instanceof Error ? error.message : String(error);
          return false;
        }
      }).catch((error: unknown) => {
        throw new Error(`${error instanceof Error ? error.message : String(error)}; last: ${failure}`);
      });
    }
  }

  private async autoctl(args: string[], timeout = 30_000): Promise<{ stdout: string; stderr: string }> {
    try {
      return await run(this.install.pgAutoctl, args, { cwd: this.folder, env: this.env, timeout, ...(this.owner ?? {}) });
    } catch (error) {
      const detail = error as { stderr?: string; message?: string };
      throw new Error(`pg_autoctl ${args.slice(0, 2).join(' ')} failed: ${(detail.stderr || detail.message || '').trim().split('\n').slice(-3).join(' | ')}`);
    }
  }

  private chownAll(): void {
    if (this.owner === undefined) return;
    const walk = (p: string): void => {
      fs.chownSync(p, this.owner!.uid, this.owner!.gid);
      if (fs.statSync(p).isDirectory()) for (const entry of fs.readdirSync(p)) walk(path.join(p, entry));
    };
    walk(this.folder);
  }

  private async waitFor(what: string, timeoutMs: number, done: () => Promise<boolean>): Promise<void> {
    const began = Date.now();
    while (!(await done())) {
      if (Date.now() - began > timeoutMs) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what} (logs in ${this.folder})`);
      await sleep(250);
    }
  }
}
