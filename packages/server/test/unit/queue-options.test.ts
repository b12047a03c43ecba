/**
 * `/configure` options (src/core/queue-options.ts parseConfigureOptions): docs/api.md 2.2 (`/configure` column) and
 * 4.2 (full replace, `null` = absent, unknown keys ignored, 400 `Invalid option <name>: <reason>`).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DomainError } from '../../src/errors.js';
import { toHttpError } from '../../src/http/errors.js';
import type { QueueOptions } from '../../src/core/queue-options.js';
import { parseConfigureOptions } from '../../src/http/queue-options.js';
import { documentValidators } from '../../src/http/validation.js';

const configureCheck = documentValidators().body('POST', '/api/v1/configure')!;

/** The options as the broker reads them: the edge's check of the body (the document), then the route's reading. */
function readOptions(options: unknown): QueueOptions {
  configureCheck({ queue: 'q', options });
  return parseConfigureOptions(options as Parameters<typeof parseConfigureOptions>[0]);
}

const DEFAULTS: QueueOptions = {
  leaseTime: 300,
  retryLimit: 3,
  retryDelay: 0,
  maxSize: 0,
  ttl: 3600,
  priority: 0,
  delayedProcessing: 0,
  windowBuffer: 0,
  minPopWaitTime: 0,
  retentionSeconds: 0,
  completedRetentionSeconds: 0,
  retentionEnabled: false,
  encryptionEnabled: false,
  maxWaitTimeSeconds: 0,
  deadLetterQueue: false,
  dlqAfterMaxRetries: false,
};

const NON_NEGATIVE_INTEGERS = ['leaseTime', 'retryLimit', 'retryDelay', 'maxSize', 'delayedProcessing', 'windowBuffer',
  'minPopWaitTime', 'retentionSeconds', 'completedRetentionSeconds', 'maxWaitTimeSeconds'] as const;
const SIGNED_INTEGERS = ['ttl', 'priority'] as const;
const BOOLEANS = ['retentionEnabled', 'encryptionEnabled', 'deadLetterQueue', 'dlqAfterMaxRetries'] as const;

/** Asserts a 400 `{"error": "Invalid option <name>: <reason>"}` and returns the text. */
function rejects(options: unknown, name: string): string {
  let text = '';
  assert.throws(
    () => readOptions(options),
    (error: unknown) => {
      assert.ok(error instanceof DomainError, `expected a DomainError, got ${String(error)}`);
      const answer = toHttpError(error);
      assert.equal(answer.status, 400);
      assert.deepEqual(Object.keys(answer.body), ['error']);
      text = String(answer.body.error);
      assert.match(text, new RegExp(`^Invalid option ${name}: \\S.*$`));
      return true;
    },
  );
  return text;
}

describe('defaults (docs/api.md 2.2, /configure column)', () => {
  for (const [label, raw] of [['absent', undefined], ['null', null], ['{}', {}]] as const) {
    test(`options ${label} -> every /configure default`, () => {
      assert.deepEqual(readOptions(raw), DEFAULTS);
    });
  }

  test('full replace: options not sent take their defaults, leaseTime included', () => {
    assert.deepEqual(readOptions({ retryLimit: 7 }), { ...DEFAULTS, retryLimit: 7 });
  });

  test('null values count as absent', () => {
    const raw = Object.fromEntries(Object.keys(DEFAULTS).map((key) => [key, null]));
    assert.deepEqual(readOptions(raw), DEFAULTS);
  });

  test('unknown keys are ignored', () => {
    assert.deepEqual(readOptions({ color: 'blue', leasetime: 'x', LeaseTime: -1 }), DEFAULTS);
  });

  test('every option given is echoed as given', () => {
    const given: QueueOptions = {
      leaseTime: 45,
      retryLimit: 0,
      retryDelay: 2500,
      maxSize: 10_000,
      ttl: -1,
      priority: -7,
      delayedProcessing: 5,
      windowBuffer: 3,
      minPopWaitTime: 250,
      retentionSeconds: 86_400,
      completedRetentionSeconds: 600,
      retentionEnabled: false,
      encryptionEnabled: true,
      maxWaitTimeSeconds: 120,
      deadLetterQueue: true,
      dlqAfterMaxRetries: true,
    };
    assert.deepEqual(parseConfigureOptions(given), given);
  });

  test('zero is a valid value for every non-negative option', () => {
    const zeros = Object.fromEntries(NON_NEGATIVE_INTEGERS.map((name) => [name, 0]));
    assert.deepEqual(parseConfigureOptions(zeros), { ...DEFAULTS, ...zeros, retentionEnabled: false });
  });

  test('ttl and priority accept negative integers', () => {
    const parsed = readOptions({ ttl: -60, priority: -3 });
    assert.equal(parsed.ttl, -60);
    assert.equal(parsed.priority, -3);
  });
});

describe('400 texts', () => {
  test('the example of docs/api.md 4.2: leaseTime -1', () => {
    assert.equal(rejects({ leaseTime: -1 }, 'leaseTime'), 'Invalid option leaseTime: must be a non-negative integer');
  });

  for (const name of NON_NEGATIVE_INTEGERS) {
    for (const bad of [-1, 1.5, '10', true, [], {}]) {
      test(`${name}: ${JSON.stringify(bad)}`, () => {
        rejects({ [name]: bad }, name);
      });
    }
  }
  for (const name of SIGNED_INTEGERS) {
    for (const bad of [2.5, '10', false, [1]]) {
      test(`${name}: ${JSON.stringify(bad)}`, () => {
        rejects({ [name]: bad }, name);
      });
    }
  }
  for (const name of BOOLEANS) {
    for (const bad of [1, 0, 'true', 'false', {}, []]) {
      test(`${name}: ${JSON.stringify(bad)}`, () => {
        rejects({ [name]: bad }, name);
      });
    }
  }

  test('the error names the offending option even when valid ones come first', () => {
    rejects({ leaseTime: 30, retryLimit: 2, windowBuffer: 'soon' }, 'windowBuffer');
  });
});

describe('minPopWaitTime (docs/api.md 2.2, 5.16.4)', () => {
  const cases: Array<[number, number]> = [
    [0, 0],
    [1, 1],
    [59_999, 59_999],
    [60_000, 60_000],
    [60_001, 60_000],
    [600_000, 60_000],
  ];
  for (const [given, stored] of cases) {
    test(`${given} -> ${stored}`, () => {
      assert.equal(readOptions({ minPopWaitTime: given }).minPopWaitTime, stored);
    });
  }

  test('negative is a 400, not a clamp', () => {
    rejects({ minPopWaitTime: -1 }, 'minPopWaitTime');
  });
});

describe('retentionEnabled (docs/api.md 2.2: true when not sent and either retention value > 0)', () => {
  const cases: Array<[Record<string, unknown>, boolean]> = [
    [{}, false],
    [{ retentionSeconds: 60 }, true],
    [{ completedRetentionSeconds: 30 }, true],
    [{ retentionSeconds: 60, completedRetentionSeconds: 30 }, true],
    [{ retentionSeconds: 0, completedRetentionSeconds: 0 }, false],
    [{ retentionSeconds: 60, retentionEnabled: null }, true],
    [{ retentionSeconds: 60, retentionEnabled: false }, false],
    [{ completedRetentionSeconds: 30, retentionEnabled: false }, false],
    [{ retentionEnabled: true }, true],
    [{ retentionSeconds: 0, retentionEnabled: true }, true],
  ];
  for (const [given, expected] of cases) {
    test(`${JSON.stringify(given)} -> ${expected}`, () => {
      const parsed = parseConfigureOptions(given);
      assert.equal(parsed.retentionEnabled, expected);
      assert.equal(parsed.retentionSeconds, (given.retentionSeconds as number | undefined) ?? 0);
      assert.equal(parsed.completedRetentionSeconds, (given.completedRetentionSeconds as number | undefined) ?? 0);
    });
  }
});
