/**
 * The SDK installs into another project: `npm pack` builds a tarball, a fresh project (its own package.json,
 * nothing of this repository) installs it, a strict TypeScript program importing `@queen/client` and
 * `@queen/client/streams` type-checks against the tarball's declarations, and the compiled program pushes
 * and pops through a real broker.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { uniqueQueue, useBroker } from '../../server/test/support/harness.js';

const PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSC = path.resolve(PACKAGE, '../../node_modules/typescript/bin/tsc');
const setup = useBroker();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'queen-sdk-pack-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));

const run = (command: string, args: string[], cwd: string): string => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

test('npm pack -> npm install in a fresh project -> strict types resolve -> it runs', { timeout: 240_000 }, () => {
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], PACKAGE)) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = packed[0]!.files.map((f) => f.path);
  for (const needed of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/streams/index.js', 'dist/streams/index.d.ts']) assert.ok(files.includes(needed), `${needed} in the tarball`);
  assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('test/')), 'no sources or tests in the tarball');

  const project = path.join(work, 'app');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'app', version: '0.0.0', private: true, type: 'module' }));
  run('npm', ['install', '--no-audit', '--no-fund', '--offline', path.join(work, packed[0]!.filename)], project);

  const queue = uniqueQueue('sdk-pack');
  fs.writeFileSync(path.join(project, 'app.ts'), `
import { Queen, QueenError, type Message } from '@queen/client';
import * as streams from '@queen/client/streams';

interface Order { n: number }
const queen = new Queen({ url: ${JSON.stringify(setup.broker.url)} });
await queen.queue<Order>(${JSON.stringify(queue)}).push([{ data: { n: 7 } }]);
const popped: Array<Message<Order>> = await queen.queue<Order>(${JSON.stringify(queue)}).batch(1).autoAck(true).pop();
const total: number = popped.reduce((sum, m) => sum + m.data.n, 0);
console.log(JSON.stringify({ total, error: typeof QueenError, streams: typeof streams }));
await queen.close();
`);
  // A wrong payload type must fail the check: the types really come from the tarball.
  fs.writeFileSync(path.join(project, 'wrong.ts'), `
import { Queen } from '@queen/client';
await new Queen({ url: 'http://localhost:1' }).queue<{ n: number }>('q').push([{ data: { n: 'seven' } }]);
`);
  const tsconfig = { compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'out', types: [] as string[] } };
  fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ ...tsconfig, files: ['app.ts'] }));
  run(process.execPath, [TSC, '-p', '.'], project);
  fs.writeFileSync(path.join(project, 'tsconfig.wrong.json'), JSON.stringify({ ...tsconfig, files: ['wrong.ts'], compilerOptions: { ...tsconfig.compilerOptions, noEmit: true } }));
  assert.throws(() => run(process.execPath, [TSC, '-p', 'tsconfig.wrong.json'], project), (error: { stdout?: string }) => /wrong\.ts.*TS2322/s.test(error.stdout ?? ''));

  const output = run(process.execPath, ['out/app.js'], project);
  assert.deepEqual(JSON.parse(output), { total: 7, error: 'function', streams: 'object' });
});
