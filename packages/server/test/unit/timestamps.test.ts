/**
 * Timestamp input (src/core/timestamps.ts, docs/api.md 1.8.3): ISO-8601 with Z or +HH:MM / -HH:MM, no zone = UTC,
 * up to microsecond fractions. The output is a normalised text PostgreSQL reads unambiguously:
 * `YYYY-MM-DDTHH:MM:SS.ffffff±HH:MM`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseTimestamp } from '../../src/core/timestamps.js';

describe('accepted forms', () => {
  const cases: Array<[string, string]> = [
    ['2026-08-02T09:15:01Z', '2026-08-02T09:15:01.000000+00:00'],
    ['2026-08-02T09:15:01z', '2026-08-02T09:15:01.000000+00:00'],
    ['2026-08-02T09:15:01+02:00', '2026-08-02T09:15:01.000000+02:00'],
    ['2026-08-02T09:15:01-05:30', '2026-08-02T09:15:01.000000-05:30'],
    ['2026-08-02T09:15:01-0530', '2026-08-02T09:15:01.000000-05:30'],
    ['2026-08-02T09:15:01+0100', '2026-08-02T09:15:01.000000+01:00'],
    ['2026-08-02T09:15:01', '2026-08-02T09:15:01.000000+00:00'],
    ['2026-08-02T09:15', '2026-08-02T09:15:00.000000+00:00'],
    ['2024-02-29T23:59:59Z', '2024-02-29T23:59:59.000000+00:00'],
    ['2026-12-31T00:00:00Z', '2026-12-31T00:00:00.000000+00:00'],
  ];
  for (const [input, expected] of cases) {
    test(`${input} -> ${expected}`, () => {
      assert.equal(parseTimestamp(input), expected);
    });
  }
});

describe('fractions', () => {
  const cases: Array<[string, string]> = [
    ['2026-08-02T09:15:01.5Z', '2026-08-02T09:15:01.500000+00:00'],
    ['2026-08-02T09:15:01.204Z', '2026-08-02T09:15:01.204000+00:00'],
    ['2026-08-02T09:15:01.204611Z', '2026-08-02T09:15:01.204611+00:00'],
    ['2026-08-02T09:15:01.000001Z', '2026-08-02T09:15:01.000001+00:00'],
    // Longer than microseconds: truncated, never rounded.
    ['2026-08-02T09:15:01.2046119Z', '2026-08-02T09:15:01.204611+00:00'],
    ['2026-08-02T09:15:01.999999999Z', '2026-08-02T09:15:01.999999+00:00'],
    ['2026-08-02T09:15:01.123456789+03:00', '2026-08-02T09:15:01.123456+03:00'],
    ['2026-08-02T09:15:01.000000', '2026-08-02T09:15:01.000000+00:00'],
  ];
  for (const [input, expected] of cases) {
    test(`${input} -> ${expected}`, () => {
      assert.equal(parseTimestamp(input), expected);
    });
  }
});

describe('invalid dates and times -> null', () => {
  for (const input of [
    '2026-02-30T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-04-31T12:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-01-00T00:00:00Z',
    '2026-01-32T00:00:00Z',
    '2026-01-01T25:00:00Z',
    '2026-01-01T10:60:00Z',
    '2026-01-01T10:00:61Z',
    // Offsets PostgreSQL refuses ("time zone displacement out of range"): minutes above 59, hours above 23.
    '2026-01-01T10:00:00+05:99',
    '2026-01-01T10:00:00+24:00',
    '2026-01-01T10:00:00-9959',
  ]) {
    test(input, () => {
      assert.equal(parseTimestamp(input), null);
    });
  }
});

describe('garbage -> null', () => {
  for (const input of [
    '',
    'garbage',
    'now',
    'yesterday',
    '12345',
    '1722590101000',
    '2026/08/02 09:15:01',
    '02-08-2026T09:15:01Z',
    '2026-8-2T09:15:01Z',
    '2026-08-02T9:15:01Z',
    '2026-08-02T09:15:01Zjunk',
    '2026-08-02T09:15:01ZZ',
    '2026-08-02T09:15:01.Z',
    '2026-08-02T09:15:01+2',
    '2026-08-02T09:15:01 UTC',
    'T09:15:01Z',
  ]) {
    test(JSON.stringify(input), () => {
      assert.equal(parseTimestamp(input), null);
    });
  }
});
