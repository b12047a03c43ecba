// Measures queenctl's start-up to first request: spawns `queenctl ping` against a local HTTP server N times and
// records spawn -> request arrival; a bare `node -e 0` start (spawn -> exit) is measured in the same run, so the
// figure can be read against the machine's own Node start-up. Usage: node packages/cli/scripts/startup.mjs [N]
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const main = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/queenctl.js');
const runs = Number(process.argv[2] ?? 15);
let arrived = () => {};
const server = http.createServer((req, res) => {
  arrived();
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"healthy","database":"connected","version":"x"}');
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cli = [];
const bare = [];
for (let i = 0; i < runs; i++) {
  let t0 = performance.now();
  const first = new Promise((r) => (arrived = () => r(performance.now() - t0)));
  const child = spawn(process.execPath, [main, '--server', url, 'ping'], { stdio: 'ignore', env: { PATH: process.env.PATH, HOME: '/nonexistent' } });
  cli.push(await first);
  await new Promise((r) => child.on('exit', r));
  t0 = performance.now();
  await new Promise((r) => spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }).on('exit', r));
  bare.push(performance.now() - t0);
}
server.close();
console.log(JSON.stringify({ runs, startToFirstRequestMs: Math.round(median(cli)), bareNodeStartMs: Math.round(median(bare)), overheadMs: Math.round(median(cli) - median(bare)) }));
