/**
 * Load balancing and client construction, without a broker: a custom `fetch` records which URL each request
 * reaches (docs/client.md), and a fake clock drives health back-off.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fnv1a, LoadBalancer } from '../src/balancer.js';
import { Queen, QueenError } from '../src/index.js';
import { testClient } from './support.js';

const URLS = ['http://a:1', 'http://b:2', 'http://c:3'];

/** A fetch that answers 204 and records the base URL of every call; URLs in `down` fail like a refused connection. */
function recordingFetch(down = new Set<string>()) {
  const hits: string[] = [];
  const fetchImpl = async (input: string | URL | Request): Promise<Response> => {
    const url = new URL(String(input));
    const base = `${url.protocol}//${url.host}`;
    hits.push(base);
    if (down.has(base)) throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    return new Response(null, { status: 204 });
  };
  return { hits, fetch: fetchImpl as typeof fetch };
}

describe('FNV-1a', () => {
  test('matches the reference 32-bit vectors', () => {
    assert.equal(fnv1a(''), 0x811c9dc5);
    assert.equal(fnv1a('a'), 0xe40c292c);
    assert.equal(fnv1a('foobar'), 0xbf9cf968);
  });
});

describe('construction', () => {
  test('a string, an array or options; trailing slash removed; non-http URLs are a TypeError', async () => {
    const rec = recordingFetch();
    const q = new Queen({ url: 'http://x:9/', fetch: rec.fetch, handleSignals: false });
    await q.queue('q').wait(false).pop();
    assert.equal(rec.hits[0], 'http://x:9');
    assert.throws(() => new Queen('ftp://x'), TypeError);
    assert.throws(() => new Queen(['http://ok', 'localhost:6632']), TypeError);
    assert.throws(() => new Queen({}), TypeError);
    assert.ok(new Queen({ urls: ['https://a', 'http://b'], handleSignals: false }));
  });
});

describe('strategies', () => {
  test('round-robin visits every URL in turn', async () => {
    const rec = recordingFetch();
    const q = testClient(URLS, { loadBalancingStrategy: 'round-robin', fetch: rec.fetch });
    for (let i = 0; i < 6; i++) await q.queue('q').wait(false).pop();
    assert.deepEqual(rec.hits, [...URLS, ...URLS]);
  });

  test('session keeps one URL until it fails, then moves to the next healthy one and stays there', async () => {
    const down = new Set<string>();
    const rec = recordingFetch(down);
    const q = testClient(URLS, { loadBalancingStrategy: 'session', fetch: rec.fetch });
    for (let i = 0; i < 4; i++) await q.queue('q').wait(false).pop();
    const first = rec.hits[0]!;
    assert.ok(rec.hits.every((h) => h === first), JSON.stringify(rec.hits));
    down.add(first);
    rec.hits.length = 0;
    for (let i = 0; i < 4; i++) await q.queue('q').wait(false).pop();
    const second = rec.hits[1]!;
    assert.notEqual(second, first);
    assert.deepEqual(rec.hits, [first, second, second, second, second]);
  });

  test('affinity sends one key to one URL, spreads keys, and follows the ring on failure', async () => {
    const rec = recordingFetch();
    const q = testClient(URLS, { fetch: rec.fetch });
    const owner = new Map<string, string>();
    for (let k = 0; k < 30; k++) {
      for (let i = 0; i < 3; i++) await q.queue(`orders-${k}`).group('g').wait(false).pop();
      const hits = rec.hits.splice(0);
      assert.ok(hits.every((h) => h === hits[0]), `key ${k}: ${hits.join(',')}`);
      owner.set(`orders-${k}`, hits[0]!);
    }
    assert.equal(new Set(owner.values()).size, 3, 'thirty keys reach all three brokers');
    // The same key from another client instance maps to the same broker (the ring depends only on URLs).
    const again = recordingFetch();
    await testClient(URLS, { fetch: again.fetch }).queue('orders-7').group('g').wait(false).pop();
    assert.equal(again.hits[0], owner.get('orders-7'));
    // Key format of docs/client.md: <queue>:<partition or *>:<group or __QUEUE_MODE__>.
    const balancer = new LoadBalancer(URLS, { strategy: 'affinity', ringSize: 128, healthRetryAfterMillis: 5000 });
    assert.equal(balancer.order('orders-7:*:g')[0], owner.get('orders-7'));
  });

  test('affinity without a key (admin, ack) is round-robin', async () => {
    const rec = recordingFetch();
    const q = testClient(URLS, { fetch: rec.fetch });
    for (let i = 0; i < 3; i++) await q.admin.health();
    assert.deepEqual([...rec.hits].sort(), [...URLS].sort());
  });

  test('pushes use the <queue>:<partition> key', async () => {
    const hits: string[] = [];
    const fetchImpl = (async (input: string | URL | Request) => {
      hits.push(new URL(String(input)).host);
      return Response.json([{ index: 0, status: 'queued', transaction_id: 't', message_id: 'm', partition_id: 'p', trace_id: null, queueName: 'q' }], { status: 201 });
    }) as typeof fetch;
    const q = testClient(URLS, { fetch: fetchImpl });
    const balancer = new LoadBalancer(URLS, { strategy: 'affinity', ringSize: 128, healthRetryAfterMillis: 5000 });
    await q.queue('pq').partition('p7').push({ data: 1 });
    assert.equal(`http://${hits[0]}`, balancer.order('pq:p7')[0]);
  });
});

describe('health and failover', () => {
  test('a failed URL is skipped for healthRetryAfterMillis, then tried again', () => {
    let now = 1000;
    const balancer = new LoadBalancer(URLS, { strategy: 'round-robin', ringSize: 1, healthRetryAfterMillis: 5000, now: () => now });
    balancer.markFailed('http://a:1');
    for (let i = 0; i < 6; i++) assert.notEqual(balancer.order()[0], 'http://a:1');
    now += 5001;
    const firsts = Array.from({ length: 3 }, () => balancer.order()[0]);
    assert.ok(firsts.includes('http://a:1'));
  });

  test('when every URL is unhealthy, all are tried anyway', () => {
    const balancer = new LoadBalancer(URLS, { strategy: 'round-robin', ringSize: 1, healthRetryAfterMillis: 5000 });
    for (const url of URLS) balancer.markFailed(url);
    assert.equal(balancer.order().length, 3);
  });

  test('failover tries each URL once and marks the failed one unhealthy', async () => {
    const rec = recordingFetch(new Set(['http://a:1']));
    const q = testClient(URLS, { loadBalancingStrategy: 'round-robin', fetch: rec.fetch });
    assert.deepEqual(await q.queue('q').wait(false).pop(), []);
    assert.deepEqual(rec.hits, ['http://a:1', 'http://b:2']);
    rec.hits.length = 0;
    for (let i = 0; i < 4; i++) await q.queue('q').wait(false).pop();
    assert.ok(!rec.hits.includes('http://a:1'), 'a is skipped while unhealthy');
  });

  test('with failover off, one URL is retried retryAttempts times', async () => {
    const rec = recordingFetch(new Set(URLS));
    const q = testClient(URLS, { loadBalancingStrategy: 'round-robin', enableFailover: false, retryAttempts: 3, retryDelayMillis: 1, fetch: rec.fetch });
    // Unreachable after the retries: pop rejects (NETWORK) rather than look like an empty queue.
    await assert.rejects(q.queue('q').wait(false).pop(), (e: QueenError) => e.code === 'NETWORK');
    assert.equal(rec.hits.length, 3);
    assert.equal(new Set(rec.hits).size, 1);
  });
});
