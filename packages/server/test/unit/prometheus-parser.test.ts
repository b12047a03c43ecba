/**
 * The strict Prometheus text parser of test/support/prometheus.ts: it accepts well-formed expositions and
 * rejects every malformation the metrics suite relies on it to catch.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePrometheusText, sampleValue } from '../support/prometheus.js';

const VALID = `# HELP requests_total Requests.
# TYPE requests_total counter
requests_total{route="/a",status="200"} 3
requests_total{route="/b \\"q\\" \\\\ \\n",status="500"} 1 1700000000000
# TYPE temperature gauge
temperature -2.5e1
# HELP latency_seconds Latency.
# TYPE latency_seconds histogram
latency_seconds_bucket{le="0.1",route="/a"} 1
latency_seconds_bucket{le="1",route="/a"} 2
latency_seconds_bucket{le="+Inf",route="/a"} 3
latency_seconds_sum{route="/a"} 4.2
latency_seconds_count{route="/a"} 3
`;

describe('well-formed expositions', () => {
  test('families, types, help texts, labels with escapes and values are read', () => {
    const families = parsePrometheusText(VALID);
    assert.deepEqual([...families.keys()], ['requests_total', 'temperature', 'latency_seconds']);
    assert.equal(families.get('requests_total')!.type, 'counter');
    assert.equal(families.get('requests_total')!.help, 'Requests.');
    assert.equal(families.get('temperature')!.help, null);
    assert.equal(sampleValue(families, 'requests_total', { route: '/a' }), 3);
    assert.equal(sampleValue(families, 'requests_total', { route: '/b "q" \\ \n' }), 1);
    assert.equal(sampleValue(families, 'temperature'), -25);
    assert.equal(sampleValue(families, 'latency_seconds', { le: '+Inf' }, 'latency_seconds_bucket'), 3);
    assert.equal(sampleValue(families, 'latency_seconds', {}, 'latency_seconds_sum'), 4.2);
  });

  test('NaN and infinities are values', () => {
    const families = parsePrometheusText('# TYPE g gauge\ng{a="1"} NaN\ng{a="2"} +Inf\ng{a="3"} -Inf\n');
    assert.ok(Number.isNaN(sampleValue(families, 'g', { a: '1' })));
    assert.equal(sampleValue(families, 'g', { a: '2' }), Infinity);
    assert.equal(sampleValue(families, 'g', { a: '3' }), -Infinity);
  });
});

describe('malformed expositions are rejected', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['no final newline', '# TYPE g gauge\ng 1', /newline/],
    ['invalid metric name', '# TYPE 1g gauge\n', /invalid metric name/],
    ['invalid label name', '# TYPE g gauge\ng{1a="x"} 1\n', /invalid label name/],
    ['unquoted label value', '# TYPE g gauge\ng{a=x} 1\n', /not quoted/],
    ['bad escape', '# TYPE g gauge\ng{a="\\t"} 1\n', /invalid escape/],
    ['bad value', '# TYPE g gauge\ng 1,5\n', /invalid value/],
    ['unknown type', '# TYPE g meter\n', /unknown type/],
    ['second HELP', '# HELP g a\n# HELP g b\n', /second HELP/],
    ['TYPE after samples', 'g 1\n# TYPE g gauge\n', /TYPE of g after its samples/],
    ['duplicate series', '# TYPE g gauge\ng{a="1"} 1\ng{a="1"} 2\n', /duplicate series/],
    ['interleaved families', '# TYPE a gauge\n# TYPE b gauge\na 1\nb 1\na{x="1"} 2\n', /not contiguous/],
    ['negative counter', '# TYPE c counter\nc -1\n', /counter c is -1/],
    ['garbage line', '# TYPE g gauge\ng {\n', /invalid value/],
    ['histogram without +Inf', '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n', /no \+Inf bucket/],
    ['histogram +Inf != count', '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 1\n', /!= count/],
    ['histogram not cumulative', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="2"} 1\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 2\n', /cumulative/],
    ['histogram without _sum', '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_count 1\n', /_sum or _count missing/],
  ];
  for (const [name, text, error] of cases) {
    test(name, () => assert.throws(() => parsePrometheusText(text), error));
  }
});
