/**
 * Query strings and path segments (src/http/query.ts): docs/api.md 1.6 and 1.7.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MalformedEncoding, Query, decodeSegment } from '../../src/http/query.js';
import { documentQueryRules } from '../../src/http/validation.js';

/** A query as a route reads it: parsed, then its declared integer and boolean parameters read by the document's rules. */
function routeQuery(method: string, path: string, search: string): Query {
  const query = Query.parse(search);
  documentQueryRules().query(method, path)!(query);
  return query;
}

describe('decoding (docs/api.md 1.6.1)', () => {
  test('+ is a space, %2B is a plus', () => {
    const q = Query.parse('name=hello+world&plus=a%2Bb');
    assert.equal(q.string('name'), 'hello world');
    assert.equal(q.string('plus'), 'a+b');
  });

  test('%XX sequences are UTF-8 bytes', () => {
    const q = Query.parse('e=%C3%A9t%C3%A9&euro=%E2%82%AC&smile=%F0%9F%98%80&slash=a%2Fb&amp=x%26y&eq=k%3Dv');
    assert.equal(q.string('e'), 'été');
    assert.equal(q.string('euro'), '€');
    assert.equal(q.string('smile'), '😀');
    assert.equal(q.string('slash'), 'a/b');
    assert.equal(q.string('amp'), 'x&y');
    assert.equal(q.string('eq'), 'k=v');
  });

  test('keys are decoded too', () => {
    const q = Query.parse('consumer%47roup=g1&my+key=v');
    assert.equal(q.string('consumerGroup'), 'g1');
    assert.equal(q.string('my key'), 'v');
  });

  test('only the first = separates key and value', () => {
    assert.equal(Query.parse('a=b=c').string('a'), 'b=c');
  });

  test('empty pairs are skipped', () => {
    const q = Query.parse('&&a=1&&b=2&');
    assert.equal(q.string('a'), '1');
    assert.equal(q.string('b'), '2');
  });

  test('an empty query has no keys', () => {
    assert.equal(Query.parse('').string('a'), null);
  });

  for (const raw of ['a=%', 'a=%4', 'a=%zz', 'a=%C3', 'a=%E2%82', 'a=%FF', 'a=ok&b=%G1', '%=x', 'k%=v']) {
    test(`malformed escape ${JSON.stringify(raw)} throws MalformedEncoding`, () => {
      assert.throws(
        () => Query.parse(raw),
        (error: unknown) => {
          assert.ok(error instanceof MalformedEncoding);
          assert.equal(error.message, 'Malformed URL encoding');
          return true;
        },
      );
    });
  }
});

describe('keys (docs/api.md 1.6.2, 1.6.3)', () => {
  test('first occurrence of a repeated key wins', () => {
    const q = Query.parse('batch=5&batch=9&consumerGroup=a&consumerGroup=b');
    assert.equal(q.integer('batch'), 5);
    assert.equal(q.string('consumerGroup'), 'a');
  });

  test('keys are case-sensitive', () => {
    const q = Query.parse('Batch=5&WAIT=true');
    assert.equal(q.integer('batch'), null);
    assert.equal(q.integer('Batch'), 5);
    assert.equal(routeQuery('GET', '/api/v1/pop', 'WAIT=true').bool('wait'), false, 'the default');
  });

  test('an empty value counts as absent, whatever the type', () => {
    const q = Query.parse('consumerGroup=&batch=&wait=&flag');
    assert.equal(q.string('consumerGroup'), null);
    assert.equal(q.integer('batch'), null);
    assert.equal(q.string('flag'), null);
    assert.equal(routeQuery('GET', '/api/v1/pop', 'wait=&batch=').bool('wait'), false, 'the default');
  });

  test('an empty first occurrence wins over a later value (the key is absent)', () => {
    assert.equal(Query.parse('consumerGroup=&consumerGroup=g').string('consumerGroup'), null);
  });

  test('an absent key is null', () => {
    const q = Query.parse('a=1');
    assert.equal(q.string('b'), null);
    assert.equal(q.integer('b'), null);
    assert.throws(() => q.bool('b'), /not declared for this route/);
  });
});

describe('integers (docs/api.md 1.6.4)', () => {
  const valid: Array<[string, number]> = [
    ['0', 0],
    ['10', 10],
    ['007', 7],
    ['-3', -3],
    ['%2B7', 7],
    ['-25', -25],
    ['9007199254740991', 9007199254740991],
    ['-9007199254740991', -9007199254740991],
  ];
  for (const [raw, expected] of valid) {
    test(`${raw} -> ${expected}`, () => {
      assert.equal(Query.parse(`n=${raw}`).integer('n'), expected);
    });
  }

  const invalid = [
    '9007199254740992', // 2^53
    '-9007199254740992',
    '9007199254740993',
    '99999999999999999999',
    '1.5',
    '1.0',
    '1e3',
    '0x10',
    'abc',
    '12abc',
    '-',
    '+5', // the + decodes to a space: " 5"
    '%205',
    '5%20',
    '--5',
    '%EF%BC%95', // fullwidth digit five
    'Infinity',
    'NaN',
  ];
  for (const raw of invalid) {
    test(`${raw} counts as absent`, () => {
      assert.equal(Query.parse(`n=${raw}`).integer('n'), null);
    });
  }
});

describe('booleans (docs/api.md 1.6.5): deleteMetadata reads anything else as false', () => {
  const cases: Array<[string, boolean]> = [
    ['true', true],
    ['1', true],
    ['false', false],
    ['0', false],
    ['yes', false],
    ['True', false],
    ['2', false],
    ['on', false],
  ];
  for (const [raw, expected] of cases) {
    test(`${raw} -> ${expected}`, () => {
      assert.equal(routeQuery('DELETE', '/api/v1/consumer-groups/:group', `deleteMetadata=${raw}`).bool('deleteMetadata'), expected);
    });
  }
});

describe('path segments (docs/api.md 1.7.1)', () => {
  test('percent-escapes decode as UTF-8, + stays a plus, %2F is part of the name', () => {
    assert.equal(decodeSegment('a%2Fb'), 'a/b');
    assert.equal(decodeSegment('a+b'), 'a+b');
    assert.equal(decodeSegment('a%20b'), 'a b');
    assert.equal(decodeSegment('%C3%A9'), 'é');
    assert.equal(decodeSegment('plain.name'), 'plain.name');
  });

  for (const raw of ['%', '%E0%A4%A', '%zz', '%C3']) {
    test(`malformed segment ${JSON.stringify(raw)} throws MalformedEncoding`, () => {
      assert.throws(() => decodeSegment(raw), MalformedEncoding);
    });
  }
});

describe('the pop parameters (docs/configuration.md "Request parameters"), read by the document\'s rules', () => {
  const rules = documentQueryRules({ batch: { default: 5, maximum: 50 }, timeout: { default: 900_000 } });
  const pop = (search: string): Query => {
    const query = Query.parse(search);
    rules.query('GET', '/api/v1/pop/queue/:queue')!(query);
    return query;
  };
  const refusal = (search: string): string => {
    try {
      pop(search);
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  };

  test('defaults: the configured ones (held to the bounds), else the document\'s', () => {
    const q = pop('');
    assert.deepEqual([q.number('batch'), q.number('timeout'), q.number('partitions'), q.number('leaseSeconds'), q.bool('wait'), q.bool('autoAck')], [5, 600_000, 1, 0, false, false]);
  });

  test('clamps: batch to the configured maximum, timeout to [0, 600000], partitions and leaseSeconds at 0 from below', () => {
    const q = pop('batch=999&timeout=-5&partitions=-2&leaseSeconds=-1');
    assert.deepEqual([q.number('batch'), q.number('timeout'), q.number('partitions'), q.number('leaseSeconds')], [50, 0, 0, 0]);
    assert.equal(pop('timeout=700000').number('timeout'), 600_000);
  });

  test('the 400s name the parameter, what it accepts and what came', () => {
    assert.equal(refusal('batch=0'), 'Invalid batch: must be an integer from 1 to 50 (got "0")');
    assert.equal(refusal('batch=x'), 'Invalid batch: must be an integer from 1 to 50 (got "x")');
    assert.equal(refusal(`timeout=${'9'.repeat(45)}`), `Invalid timeout: must be an integer of milliseconds up to 600000 (0 or less: one attempt) (got "${'9'.repeat(40)}...")`);
    assert.equal(refusal('partitions=2147483648'), 'Invalid partitions: must be an integer of at most 2147483647');
    assert.equal(refusal('leaseSeconds=1.5'), "Invalid leaseSeconds: must be an integer of seconds up to 315360000 (0 or less: the queue's leaseTime) (got \"1.5\")");
    assert.equal(refusal('leaseSeconds=315360001'), 'Invalid leaseSeconds: must be an integer of at most 315360000');
    assert.equal(refusal('wait=yes'), 'Invalid wait: must be true or false (or 1 or 0) (got "yes")');
    assert.equal(refusal('autoAck=1&wait=0'), 'accepted');
  });
});
