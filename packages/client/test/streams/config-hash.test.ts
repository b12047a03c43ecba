/**
 * config_hash: the test vectors of docs/streams-sdk.md, and equality with the official client's hash for the same
 * chains (so either SDK can resume the other's query), computed by the official code itself.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Stream } from '../../src/streams/index.js';
import { officialModule } from './official.js';

const src = { queueName: 'src' };
const sink = { queueName: 'sink' };
const noop = () => undefined;
const one = () => 1;

type Chain = { configHash(): Promise<string> };
/** Pairs of (ours, a function building the same chain with the official Stream). */
function chains(): Array<[string, Chain, (S: any) => any]> {
  const ev = (m: any) => m.data.t;
  return [
    ['map + sink', Stream.from(src).map(noop).to({ queueName: 'never' }), (S) => S.from(src).map(noop).to({ queueName: 'never' })],
    ['filter map foreach', Stream.from(src).filter(noop).map(noop).foreach(noop), (S) => S.from(src).filter(noop).map(noop).foreach(noop)],
    ['flatMap keyBy', Stream.from(src).flatMap(() => []).keyBy(noop), (S) => S.from(src).flatMap(() => []).keyBy(noop)],
    ['tumbling aggregate sink', Stream.from(src).windowTumbling({ seconds: 2 }).aggregate({ count: one, sum: one }).to(sink), (S) => S.from(src).windowTumbling({ seconds: 2 }).aggregate({ count: one, sum: one }).to(sink)],
    [
      'tumbling every option',
      Stream.from(src).windowTumbling({ seconds: 60, gracePeriod: 5, idleFlushMs: 250.7, eventTime: ev, allowedLateness: 3, onLate: 'include' }).reduce((a: number) => a + 1, 0).map(noop).foreach(noop),
      (S) => S.from(src).windowTumbling({ seconds: 60, gracePeriod: 5, idleFlushMs: 250.7, eventTime: ev, allowedLateness: 3, onLate: 'include' }).reduce((a: number) => a + 1, 0).map(noop).foreach(noop),
    ],
    ['sliding reduce without initial', Stream.from(src).windowSliding({ size: 4, slide: 2 }).reduce(noop), (S) => S.from(src).windowSliding({ size: 4, slide: 2 }).reduce(noop)],
    ['session avg min max', Stream.from(src).keyBy(noop).windowSession({ gap: 2, idleFlushMs: 0 }).aggregate({ avg: one, min: one, max: one, total: one }).to(sink), (S) => S.from(src).keyBy(noop).windowSession({ gap: 2, idleFlushMs: 0 }).aggregate({ avg: one, min: one, max: one, total: one }).to(sink)],
    ['cron week', Stream.from(src).windowCron({ every: 'week', gracePeriod: 0.5 }).aggregate({ count: one }), (S) => S.from(src).windowCron({ every: 'week', gracePeriod: 0.5 }).aggregate({ count: one })],
    ['gate post map sink', Stream.from(src).map(noop).gate(() => true).map(noop).to(sink), (S) => S.from(src).map(noop).gate(() => true).map(noop).to(sink)],
    ['empty chain', Stream.from(src), (S) => S.from(src)],
  ];
}

describe('config_hash', () => {
  test('the docs/streams-sdk.md test vectors', async () => {
    assert.equal(await Stream.from(src).map(noop).to({ queueName: 'never' }).configHash(), '5ec1e7bb78faa1fd1c56ad9be00f817c8a71c9415915089c9bc751141f7b5efa');
    assert.equal(await Stream.from(src).windowTumbling({ seconds: 2 }).aggregate({ count: one, sum: one }).to(sink).configHash(), 'd5996a8234f7f9b8b6c9aabe1c2c2d3a1b37fd688933dfe3efe3aa9a01da8822');
    assert.equal(await Stream.from(src).filter(noop).map(noop).foreach(noop).configHash(), 'a7bff5e2ccfb324b53ce13be97dbc4bb418c2ad54e47be3441202e49ab2968bb');
  });

  test('equals the official client hash for the same chains', async () => {
    const { Stream: Official } = await officialModule<{ Stream: any }>('streams/Stream.js');
    for (const [name, ours, theirs] of chains()) {
      assert.equal(await ours.configHash(), theirs(Official)._compile().config_hash, name);
    }
  });

  test('functions are not hashed; shapes are', async () => {
    const a = await Stream.from(src).map(() => 1).to(sink).configHash();
    assert.equal(await Stream.from(src).map(() => 2).to(sink).configHash(), a);
    assert.notEqual(await Stream.from(src).filter(() => 1).to(sink).configHash(), a);
    assert.notEqual(await Stream.from(src).map(() => 1).to({ queueName: 'other' }).configHash(), a);
    assert.notEqual(await Stream.from(src).windowTumbling({ seconds: 2 }).aggregate({ count: one }).configHash(), await Stream.from(src).windowTumbling({ seconds: 3 }).aggregate({ count: one }).configHash());
  });
});
