/**
 * The bytes of request bodies the broker holds at once are bounded (MAX_BODY_BYTES_IN_FLIGHT): a body that
 * would pass the bound is refused with 503 + Retry-After before it is read, so slow senders of large bodies
 * cannot grow the broker's memory (before the bound, 100 held 10 MB bodies took RSS from 206 to 1 136 MiB and
 * it stayed there). The bytes come back when a response is done.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { test } from 'node:test';
import { uniqueQueue, useBroker } from '../support/harness.js';

const MiB = 1024 * 1024;
const setup = useBroker({ MAX_BODY_BYTES_IN_FLIGHT: String(8 * MiB) });

/** The broker's resident set in MiB (Linux /proc). */
function rssMiB(pid: number): number {
  const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) / 1024;
}

/**
 * A push whose body declares `declared` bytes but sends only `sent` of them. Resolves within 10 s with what
 * came back: the status line and headers, or `closed` when the broker closed the connection (a reset can
 * drop a 503 the client had not read yet), or null while the broker is still reading the body.
 */
function heldPush(port: number, declared: number, sent: number): { socket: net.Socket; answer: Promise<string | null> } {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(`POST /api/v1/push HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
  socket.write(Buffer.alloc(sent, 0x20));
  const answer = new Promise<string | null>((resolve) => {
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString();
      if (text.includes('\r\n\r\n')) resolve(text);
    });
    socket.on('close', () => resolve(text === '' ? 'closed' : text));
    setTimeout(() => resolve(text === '' ? null : text), 10_000);
  });
  return { socket, answer };
}

test('40 slow 4 MiB bodies with an 8 MiB bound: two are held, the rest get 503 + Retry-After, memory stays flat and comes back', async () => {
  const pid = setup.broker.process.pid!;
  const before = rssMiB(pid);
  const held = Array.from({ length: 40 }, () => heldPush(setup.broker.port, 4 * MiB, 4 * MiB - 1000));
  const answers = await Promise.all(held.map((h) => h.answer));
  const during = rssMiB(pid);
  const answered = answers.filter((a) => a !== null && a.startsWith('HTTP/1.1 503'));
  const closed = answers.filter((a) => a === 'closed');
  const waiting = answers.filter((a) => a === null);
  assert.equal(waiting.length, 2, 'the two bodies within the bound are being read');
  assert.equal(answered.length + closed.length, 38, 'the others are refused');
  for (const answer of answered) assert.match(answer!, /\r\nRetry-After: 1\r\n/i);
  // A client that sends its headers and waits reads the refusal in full.
  const probe = heldPush(setup.broker.port, 4 * MiB, 10);
  const refusal = await probe.answer;
  assert.match(refusal ?? '', /^HTTP\/1.1 503 .*\r\nRetry-After: 1\r\n/is);
  assert.ok(refusal!.includes('Server busy: too many request bytes in flight, retry later'));
  probe.socket.destroy();
  assert.ok(during - before < 60, `RSS grew ${Math.round(during - before)} MiB while 160 MiB of bodies were offered`);
  for (const h of held) h.socket.destroy();
  // The held bytes were given back: bodies are accepted again.
  await new Promise((r) => setTimeout(r, 200));
  const res = await setup.api.push([{ queue: uniqueQueue('after'), transactionId: 'a', payload: { big: 'x'.repeat(6 * MiB) } }]);
  assert.equal(res.status, 201, res.text.slice(0, 200));
  assert.ok(rssMiB(pid) - before < 100, 'memory came back');
});
