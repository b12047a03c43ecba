/**
 * The message listing's scan (core/messages.ts listMessages): pages are read by position, never by a growing
 * OFFSET; a status-filtered scan stops after MESSAGE_SCAN_MAX messages with the cursor to continue from; the
 * cursor round-trips and a forged one is refused. The reader is an in-memory list of messages in listing
 * order (the SQL keyset itself is exercised end to end in e2e/bounded-listings.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MESSAGE_SCAN_MAX, decodeListPosition, encodeListPosition, listMessages, type ListPosition, type MessageListReader } from '../../src/core/messages.js';
import type { ListedMessage } from '../../src/store/messages.js';

const PID = '0190a0b0-0000-7000-8000-000000000001';

/** `count` messages of one partition, newest first (offsets count, count-1, ... 1). */
function rows(count: number): ListedMessage[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `id-${count - i}`, transactionId: `t-${count - i}`, partitionId: PID, partition: 'p', queue: 'q', namespace: '', task: '',
    priority: 0, traceId: null, producerSub: null, traceContext: null, createdAt: '2026-01-01T00:00:00.000Z', offset: count - i, deadLetterGroups: [],
    at: '2026-01-01 00:00:00.000001+00', payloadHead: null, payloadBytes: null,
  }));
}

/** A reader over `all`, recording how many rows each page asked for and whether it used OFFSET. */
function reader(all: ListedMessage[]): MessageListReader & { reads: Array<{ limit: number; offset: number }> } {
  const reads: Array<{ limit: number; offset: number }> = [];
  return {
    reads,
    async page({ limit, offset, after }) {
      reads.push({ limit, offset });
      const from = after === null ? offset : all.findIndex((r) => r.offset < after.offset);
      return from < 0 ? [] : all.slice(from, from + limit);
    },
    async cursors() {
      return new Map(); // nobody consumed: every message is pending
    },
  };
}

describe('listMessages', () => {
  test('a status filter that matches nothing stops after MESSAGE_SCAN_MAX messages, with the cursor where it stopped', async () => {
    const all = rows(MESSAGE_SCAN_MAX + 5000);
    const r = reader(all);
    const page = await listMessages(r, { status: 'completed', limit: 10, offset: 0, after: null });
    assert.deepEqual(page.messages, []);
    assert.equal(r.reads.reduce((n, read) => n + read.limit, 0), MESSAGE_SCAN_MAX);
    assert.ok(r.reads.every((read) => read.offset === 0), 'pages are read by position, not OFFSET');
    assert.equal(page.next?.offset, all[MESSAGE_SCAN_MAX - 1]!.offset);
    const rest = await listMessages(reader(all), { status: 'completed', limit: 10, offset: 0, after: page.next });
    assert.deepEqual(rest, { messages: [], next: null }, 'the second request finishes the scan');
  });

  test('a deep offset is carried in the cursor: the matches still to skip survive the stop', async () => {
    const all = rows(MESSAGE_SCAN_MAX + 100);
    const first = await listMessages(reader(all), { status: 'pending', limit: 5, offset: MESSAGE_SCAN_MAX + 10, after: null });
    assert.deepEqual(first.messages, []);
    assert.equal(first.next?.skip, 10);
    const second = await listMessages(reader(all), { status: 'pending', limit: 5, offset: 0, after: first.next });
    assert.deepEqual(second.messages.map((m) => m.offset), [90, 89, 88, 87, 86]);
  });

  test('paging by cursor visits every match once, in order', async () => {
    const all = rows(2500);
    const seen: number[] = [];
    let after: ListPosition | null = null;
    for (let i = 0; i < 100; i++) {
      const page = await listMessages(reader(all), { status: 'pending', limit: 300, offset: 0, after });
      seen.push(...page.messages.map((m) => m.offset));
      if (page.next === null) break;
      after = page.next;
    }
    assert.deepEqual(seen, all.map((r) => r.offset));
  });

  test('the cursor round-trips; anything else is refused', () => {
    const position = { at: '2026-01-01 10:00:00.123456+00', partitionId: PID, offset: 42, skip: 3 };
    assert.deepEqual(decodeListPosition(encodeListPosition(position)), position);
    for (const forged of ['', 'abc', Buffer.from('[1,2,3,4]').toString('base64url'), Buffer.from(JSON.stringify(["x'; DROP", PID, 1, 0])).toString('base64url')]) {
      assert.equal(decodeListPosition(forged), null, forged);
    }
  });
});
