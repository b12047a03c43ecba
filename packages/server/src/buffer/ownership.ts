/**
 * Who owns a buffer directory, and the safe adoption of directories left by dead processes.
 *
 * Every process writes under `<FILE_BUFFER_DIR>/<server_id>/`. SERVER_ID defaults to `<hostname>:<pid>`, so
 * a restarted process has a new directory and its predecessor's files would be stranded. Each directory
 * therefore holds `owner.json` (server_id, hostname, pid, the pid's start time from /proc, the database's
 * cluster id) and is created atomically with it (made under a temporary name, then renamed). A directory
 * is an orphan when its owner ran on this host and is dead: no process with that pid, or one with a
 * different start time (the pid was reused). Directories of other hosts are never judged (their pids mean
 * nothing here), nor those recorded for another database (their files belong to that database).
 *
 * Containers can share a hostname (host networking) and a volume while their pids live in separate pid
 * namespaces, where a pid says nothing about the other container. The owner record therefore names its pid
 * namespace; when it differs from ours, liveness is judged by the owner's touch instead: a live owner
 * refreshes the modification time of `owner.json` every 10 s, and only a record untouched for 60 s is dead.
 *
 * A container restarted with the default SERVER_ID (`<hostname>:1`) finds its own directory owned by a
 * record from another pid namespace. It takes the directory over at once when the record says `released`
 * (written at a clean stop) or names the same hostname and pid (a previous incarnation of this container:
 * two live containers sharing a hostname and a volume must set distinct SERVER_IDs anyway); otherwise it
 * waits until the record is stale rather than refusing to start.
 *
 * Adoption is one atomic rename of the orphan directory into the adopter's own directory
 * (`<own>/adopted/<name>-<uuid>`): when two live brokers race for the same orphan, exactly one rename
 * succeeds. Files are then found by walking the own directory recursively, so a broker that dies after
 * adopting passes everything on to its own adopter.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUFFER_FILE_SUFFIX, compareBufferFiles } from './format.js';

/** The content of `owner.json`. */
export interface Owner {
  serverId: string;
  hostname: string;
  pid: number;
  /** The pid's start time (field 22 of /proc/<pid>/stat), or null where /proc is not available. */
  pidStart: string | null;
  clusterId: string;
  createdAt: string;
  /** The pid namespace of the owner (`readlink /proc/self/ns/pid`), or null where unknown. */
  pidNamespace: string | null;
  /** Set at a clean stop: the owner let go of the directory (its files wait for the next owner). */
  released?: boolean;
  /** When `owner.json` was last touched (ms since the epoch; filled in by `readOwner`, not stored). */
  touchedAt?: number;
}

/**
 * The cluster id of a record written by a broker that had not reached its database yet (and found no record
 * naming one): its files were accepted for the database it was configured with, so any database takes them.
 */
export const UNKNOWN_CLUSTER = 'unknown';

/** True when files recorded for cluster `recorded` belong to the database `current`. */
function sameDatabase(recorded: string, current: string): boolean {
  return recorded === current || recorded === UNKNOWN_CLUSTER || current === UNKNOWN_CLUSTER;
}

/** How often a live owner touches its record (ms). */
export const OWNER_TOUCH_MS = 10_000;
/** A record untouched for this long belongs to a dead owner (ms), where pids cannot tell. */
const OWNER_STALE_MS = 60_000;

function pidNamespace(): string | null {
  try {
    return fs.readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
}

const OWNER_FILE = 'owner.json';

/** A directory name for a server id (anything outside [A-Za-z0-9._:@-] becomes `_`). */
export function directoryName(serverId: string): string {
  const safe = serverId.replace(/[^A-Za-z0-9._:@-]/g, '_');
  return safe === '' || safe.startsWith('.') ? `_${safe}` : safe;
}

/** The start time of a process, from /proc (Linux); null when unknown. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null; // field 22 overall; fields[0] is field 3
  } catch {
    return null;
  }
}

/** The state letter of a process from `/proc/<pid>/stat` (`R`, `S`, `Z` for a zombie ...), or null off Linux. */
export function processState(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces or parentheses: the state follows the last `)`.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || null;
  } catch {
    return null;
  }
}

/** This process as an owner record. */
export function currentOwner(serverId: string, clusterId: string): Owner {
  return { serverId, hostname: os.hostname(), pid: process.pid, pidStart: processStartTime(process.pid), clusterId,
    createdAt: new Date().toISOString(), pidNamespace: pidNamespace() };
}

/** True unless the owner is certainly dead: it ran on this host and its pid is gone or was reused. */
export function ownerAlive(owner: Owner): boolean {
  if (owner.hostname !== os.hostname()) return true;
  const namespace = pidNamespace();
  if (owner.pidNamespace !== null && namespace !== null && owner.pidNamespace !== namespace) {
    return owner.touchedAt === undefined || Date.now() - owner.touchedAt < OWNER_STALE_MS;
  }
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A process killed with -9 stays a zombie until its parent reaps it: signal 0 still reaches it, but it
  // will never run again, so it owns nothing (a restart right after kill -9 must not wait for the reaping).
  if (processState(owner.pid) === 'Z') return false;
  if (owner.pidStart === null) return true;
  const now = processStartTime(owner.pid);
  return now === null || now === owner.pidStart;
}

/** Reads a directory's owner record; null when missing or unreadable. */
export function readOwner(dir: string): Owner | null {
  try {
    const file = path.join(dir, OWNER_FILE);
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Owner>;
    if (typeof parsed.serverId !== 'string' || typeof parsed.hostname !== 'string' || typeof parsed.pid !== 'number' || typeof parsed.clusterId !== 'string') return null;
    return { pidStart: null, createdAt: '', pidNamespace: null, ...parsed, touchedAt: fs.statSync(file).mtimeMs } as Owner;
  } catch {
    return null;
  }
}

function fsyncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function writeOwnerFile(dir: string, owner: Owner): void {
  const temporary = path.join(dir, `.${OWNER_FILE}.${randomUUID()}`);
  const fd = fs.openSync(temporary, 'w');
  try {
    const { touchedAt: _touched, ...stored } = owner;
    fs.writeSync(fd, JSON.stringify(stored));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temporary, path.join(dir, OWNER_FILE));
  fsyncDirectory(dir);
}

/** Rewrites this process's owner record (the database's cluster id became known after a start without it). */
export function recordOwner(own: string, owner: Owner): void {
  writeOwnerFile(own, owner);
}

/**
 * Moves `files` of `own` into a new sibling directory `<own>.other-database-<uuid>` under `owner`, the record
 * of the run that wrote them (a dead process: adoptable by a broker of that database). Returns it.
 */
export function setAside(own: string, files: string[], owner: Owner | null): string {
  const aside = `${own}.other-database-${randomUUID()}`;
  fs.mkdirSync(aside);
  if (owner !== null) writeOwnerFile(aside, owner);
  for (const file of files) {
    try {
      fs.renameSync(file, path.join(aside, path.basename(file)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // an empty leftover the scan deleted
    }
  }
  fsyncDirectory(aside);
  fsyncDirectory(path.dirname(own));
  return aside;
}

/** Refreshes this process's owner record (a sign of life where pids cannot tell, see the design note). */
export function touchOwner(own: string): void {
  const now = new Date();
  try {
    fs.utimesSync(path.join(own, OWNER_FILE), now, now);
  } catch {
    // the directory is gone (removed at stop); nothing to keep alive
  }
}

/** Thrown when a live process already owns the directory this process would write to. */
export class BufferOwnershipError extends Error {}

/** Thrown when the owner may be alive in another pid namespace: its record goes stale in `waitMs`. */
export class BufferOwnerFreshError extends BufferOwnershipError {
  constructor(message: string, readonly waitMs: number) {
    super(message);
  }
}

/** Marks this process's owner record released (at a clean stop), so the next owner takes over at once. */
export function releaseDirectory(own: string): void {
  const owner = readOwner(own);
  if (owner === null) return;
  try {
    writeOwnerFile(own, { ...owner, released: true });
  } catch {
    // the directory is gone or read-only: the record goes stale by itself
  }
}

/** `takeDirectory`, waiting (with `onWait` told) while the owner record is fresh in another pid namespace. */
export async function acquireDirectory(root: string, own: string, owner: Owner, onWait: (waitMs: number) => void = () => undefined): Promise<boolean> {
  for (;;) {
    try {
      return takeDirectory(root, own, owner);
    } catch (error) {
      if (!(error instanceof BufferOwnerFreshError)) throw error;
      onWait(error.waitMs);
      await new Promise((resolve) => setTimeout(resolve, error.waitMs + 50));
    }
  }
}

/**
 * Makes `own` this process's directory: created (atomically, with its owner record) when missing; taken
 * over when its owner is dead (a fixed SERVER_ID across restarts); set aside when it belongs to another
 * database. Refuses (throws) when a live process owns it. Returns true when it held files of a previous run.
 */
export function takeDirectory(root: string, own: string, owner: Owner): boolean {
  fs.mkdirSync(root, { recursive: true });
  if (fs.existsSync(own)) {
    const previous = readOwner(own);
    if (previous !== null && !sameDatabase(previous.clusterId, owner.clusterId)) {
      fs.renameSync(own, `${own}.other-database-${randomUUID()}`);
    } else {
      const self = previous !== null && previous.hostname === owner.hostname && previous.pid === owner.pid &&
        previous.pidStart === owner.pidStart && previous.pidNamespace === owner.pidNamespace;
      const otherNamespace = previous !== null && previous.pidNamespace !== null && owner.pidNamespace !== null &&
        previous.pidNamespace !== owner.pidNamespace;
      // Same hostname and pid in another pid namespace: this container before its restart.
      const previousIncarnation = otherNamespace && previous.hostname === owner.hostname && previous.pid === owner.pid;
      if (previous !== null && !self && previous.released !== true && !previousIncarnation && ownerAlive(previous)) {
        const message = `buffer directory ${own} is owned by a live process (${previous.hostname}, pid ${previous.pid}): give each broker its own SERVER_ID`;
        if (otherNamespace && previous.hostname === owner.hostname && previous.touchedAt !== undefined) {
          throw new BufferOwnerFreshError(message, Math.max(0, previous.touchedAt + OWNER_STALE_MS - Date.now()));
        }
        throw new BufferOwnershipError(message);
      }
      writeOwnerFile(own, owner);
      return true;
    }
  }
  const temporary = path.join(root, `.creating-${randomUUID()}`);
  fs.mkdirSync(temporary);
  writeOwnerFile(temporary, owner);
  fs.renameSync(temporary, own);
  fsyncDirectory(root);
  return false;
}

/** The names of orphan directories under `root` (dead owner on this host, same database), never `own`. */
export function findOrphans(root: string, own: string, clusterId: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && path.join(root, e.name) !== own)
    .filter((e) => {
      const owner = readOwner(path.join(root, e.name));
      return owner !== null && sameDatabase(owner.clusterId, clusterId) && !ownerAlive(owner);
    })
    .map((e) => e.name)
    .sort();
}

/** Moves an orphan directory into `own` with one atomic rename; the new path, or null when another process won. */
export function claimOrphan(root: string, name: string, own: string): string | null {
  const adopted = path.join(own, 'adopted');
  fs.mkdirSync(adopted, { recursive: true });
  const target = path.join(adopted, `${name.replace(/[^A-Za-z0-9._-]/g, '_')}-${randomUUID()}`);
  try {
    fs.renameSync(path.join(root, name), target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTEMPTY' || code === 'EEXIST') return null;
    throw error;
  }
  fsyncDirectory(adopted);
  fsyncDirectory(root);
  return target;
}

/** Every buffer file under `dir`, at any depth, in replay order (by file name: creation time, then sequence). */
export function listBufferFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile() && e.name.endsWith(BUFFER_FILE_SUFFIX)) found.push(full);
    }
  };
  walk(dir);
  return found.sort(compareBufferFiles);
}

/** Removes the empty directories under `own/adopted` (whose files were all replayed). */
export function pruneAdopted(own: string): void {
  const prune = (d: string): boolean => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return false;
    }
    let empty = true;
    for (const e of entries) {
      const full = path.join(d, e.name);
      if (e.isDirectory() ? !prune(full) : e.name !== OWNER_FILE) empty = false;
    }
    if (!empty) return false;
    fs.rmSync(d, { recursive: true, force: true });
    return true;
  };
  prune(path.join(own, 'adopted'));
}

/** Removes this process's directory at a clean stop when nothing is left in it. */
export function removeIfEmpty(own: string): void {
  pruneAdopted(own);
  try {
    const rest = fs.readdirSync(own).filter((name) => name !== OWNER_FILE);
    if (rest.length === 0) fs.rmSync(own, { recursive: true, force: true });
  } catch {
    // already gone
  }
}
