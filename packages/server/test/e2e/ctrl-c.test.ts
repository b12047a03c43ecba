/**
 * A terminal's Ctrl-C (store/embedded.ts, main.ts): the terminal sends SIGINT to its foreground process group.
 * The broker runs here as such a job (its own session, as a shell starts it); its embedded PostgreSQL must be in
 * another group, so the SIGINT reaches the broker alone, which drains and then stops PostgreSQL itself. The
 * shutdown logs no warning and no multi-kilobyte line, exits 0 and leaves no PostgreSQL behind. The ready line
 * names the embedded PostgreSQL's port.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { client, freePort } from '../support/harness.js';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/main.js');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-ctrl-c-'));

after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** The process group of a process (field 5 of /proc/<pid>/stat). */
function groupOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

test('Ctrl-C stops the broker, then its embedded PostgreSQL: in separate process groups, a quiet log, exit 0', { timeout: 180_000 }, async () => {
  const port = await freePort();
  const broker = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', QUEEN_WORKERS: '1', HOST: '127.0.0.1', PORT: String(port), QUEEN_DATA_DIR: dataDir, LOG_FORMAT: 'pretty', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // a job of its own: its group is what a terminal's Ctrl-C signals
  });
  let output = '';
  broker.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  broker.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => broker.once('exit', (code) => resolve(code)));
  const until = Date.now() + 120_000;
  while (!output.includes('listening on') && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  const ready = /embedded PostgreSQL \d+ at .*pgdata, port (\d+)\)/.exec(output);
  assert.ok(ready !== null, output);
  const pgdata = path.join(dataDir, 'pgdata');
  const postmaster = Number(fs.readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
  assert.equal(fs.readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[3], ready[1], 'the ready line names the port PostgreSQL listens on');
  assert.equal(groupOf(broker.pid!), broker.pid, 'the broker leads its own group');
  assert.notEqual(groupOf(postmaster), groupOf(broker.pid!), 'PostgreSQL is not in the group a Ctrl-C signals');

  // Work in flight when the signal comes: pushes, and a long poll parked on an empty queue.
  const api = client(`http://127.0.0.1:${port}`);
  const pushed = await api.push([{ queue: 'ctrl-c', payload: { n: 1 } }, { queue: 'ctrl-c', payload: { n: 2 } }]);
  assert.equal(pushed.status, 201, pushed.text);
  const parked = api.get('/api/v1/pop/queue/ctrl-c-empty?wait=true&timeout=20000').catch(() => null);
  await new Promise((r) => setTimeout(r, 300));
  process.kill(-broker.pid!, 'SIGINT');
  assert.equal(await exited, 0, output);
  await parked;

  const lines = output.trimEnd().split('\n');
  assert.deepEqual(lines.filter((l) => / (WARN|ERROR|FATAL) /.test(l)), [], output);
  assert.ok(lines.every((l) => l.length < 400), `no object dumps:\n${output}`);
  assert.match(lines[lines.length - 1]!, /Queen broker stopped/);
  const deadline = Date.now() + 5000;
  while (fs.existsSync(path.join(pgdata, 'postmaster.pid')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal(fs.existsSync(path.join(pgdata, 'postmaster.pid')), false, 'PostgreSQL shut down cleanly');
  let left = '';
  try {
    left = execFileSync('pgrep', ['-af', `postgres.*-D ${pgdata}`], { encoding: 'utf8' }).trim();
  } catch {
    // pgrep exits 1 when nothing matches
  }
  assert.equal(left, '', 'no PostgreSQL process is left');
});
