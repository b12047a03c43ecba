/**
 * The seeding intent of a pop (subscriptionIntent in src/core/pop.ts), docs/api.md 5.7 rules 2-3 and 5.2:
 * queue mode is never seeded; `subscriptionFrom` (`now` or a parseable timestamp) wins over
 * `subscriptionMode`; an unparseable `subscriptionFrom` is ignored; an absent mode means
 * DEFAULT_SUBSCRIPTION_MODE; `new-only` = `new`; other values = `all`. Result null means `all`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { subscriptionIntent } from '../../src/core/pop.js';
import { parseTimestamp } from '../../src/core/timestamps.js';

const QM = '__QUEUE_MODE__';
const NEW = { mode: 'new', from: null };
const T = '2026-08-02T09:15:01.204611Z';
const T_PARSED = '2026-08-02T09:15:01.204611+00:00';

describe('queue mode is never seeded (rule 2)', () => {
  const cases: Array<[string | null, string | null, 'all' | 'new']> = [
    ['new', null, 'all'],
    ['new-only', null, 'all'],
    [null, 'now', 'all'],
    [null, T, 'all'],
    [null, null, 'new'],
    ['new', 'now', 'new'],
  ];
  for (const [mode, from, def] of cases) {
    test(`mode=${mode} from=${from} default=${def} -> null`, () => {
      assert.equal(subscriptionIntent(QM, mode, from, def), null);
    });
  }
});

describe('named groups (rule 3)', () => {
  test('the timestamp parse used below', () => {
    assert.equal(parseTimestamp(T), T_PARSED);
  });

  const cases: Array<[string, string | null, string | null, 'all' | 'new', unknown]> = [
    // subscriptionMode alone
    ['no parameters, default all', null, null, 'all', null],
    ['no parameters, default new', null, null, 'new', NEW],
    ['mode all', 'all', null, 'all', null],
    ['mode all overrides a default of new', 'all', null, 'new', null],
    ['mode new', 'new', null, 'all', NEW],
    ['mode new-only = new', 'new-only', null, 'all', NEW],
    ['unknown mode = all, even with default new', 'latest', null, 'new', null],
    // subscriptionFrom
    ['from now', null, 'now', 'all', NEW],
    ['from timestamp', null, T, 'all', { mode: 'timestamp', from: T_PARSED }],
    ['from timestamp with an offset', null, '2026-08-02T11:15:01+02:00', 'all', { mode: 'timestamp', from: '2026-08-02T11:15:01.000000+02:00' }],
    // subscriptionFrom wins over subscriptionMode
    ['from now wins over mode all', 'all', 'now', 'all', NEW],
    ['from timestamp wins over mode new', 'new', T, 'all', { mode: 'timestamp', from: T_PARSED }],
    ['from timestamp wins over default new', null, T, 'new', { mode: 'timestamp', from: T_PARSED }],
    // an unparseable subscriptionFrom is ignored as if absent
    ['garbage from, mode new', 'new', 'yesterday', 'all', NEW],
    ['garbage from, mode all', 'all', 'yesterday', 'new', null],
    ['garbage from, no mode, default all', null, 'not-a-date', 'all', null],
    ['garbage from, no mode, default new', null, 'not-a-date', 'new', NEW],
    ['invalid date from is ignored', null, '2026-02-30T00:00:00Z', 'all', null],
  ];
  for (const [label, mode, from, def, expected] of cases) {
    test(label, () => {
      assert.deepEqual(subscriptionIntent('billing', mode, from, def), expected);
    });
  }
});
