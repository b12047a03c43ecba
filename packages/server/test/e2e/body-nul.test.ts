/**
 * The NUL promise for every field of every body (issue 43 item 4; docs/api.md 1.5, docs/streams.md "Limits"):
 * text PostgreSQL cannot store as sent (a NUL byte, an unpaired surrogate) anywhere in a request body is a 400
 * `Invalid <field>` before the route runs, whatever the field means (a UUID included), except the opaque message
 * JSON of `payload` and `data`, which is stored escaped and delivered as sent.
 *
 * The fields are not listed here: they are read from packages/server/openapi.json, so every body field the
 * document declares, at any depth (array items and `oneOf` branches included), is sent once with each bad string.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { openApi } from '../support/contract.js';
import { useBroker } from '../support/harness.js';

const setup = useBroker();

/** The keys whose value is opaque message JSON: stored as JSON text, so any string survives there. */
const OPAQUE = new Set(['payload', 'data']);
const BAD_STRINGS = ['a\u0000b', 'x\ud800'];

interface Schema {
  $ref?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
}

const document = openApi as unknown as { components: { schemas: Record<string, Schema> } };

function resolve(schema: Schema): Schema {
  return schema.$ref === undefined ? schema : resolve(document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]!);
}

/** A path to a field: object keys, and `[]` for "an element of this array". */
type FieldPath = string[];

/** Every field path a body of `schema` can hold, each ending at a named key. */
function fieldPaths(schema: Schema, prefix: FieldPath = [], seen = new Set<Schema>()): FieldPath[] {
  const s = resolve(schema);
  if (seen.has(s)) return [];
  const inner = new Set(seen).add(s);
  const paths: FieldPath[] = [];
  for (const [key, child] of Object.entries(s.properties ?? {})) {
    if (OPAQUE.has(key)) continue;
    paths.push([...prefix, key], ...fieldPaths(child, [...prefix, key], inner));
  }
  if (s.items !== undefined && prefix.length > 0) paths.push([...prefix, '[]'], ...fieldPaths(s.items, [...prefix, '[]'], inner));
  for (const branch of [...(s.oneOf ?? []), ...(s.anyOf ?? []), ...(s.allOf ?? [])]) paths.push(...fieldPaths(branch, prefix, inner));
  return paths;
}

/** A body that holds `value` at `path` and nothing else. */
function bodyAt(path: FieldPath, value: string): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (head === '[]') return [bodyAt(rest, value)];
  return { [head]: bodyAt(rest, value) };
}

interface Operation { requestBody?: { content: Record<string, { schema: Schema }> } }
const operations = Object.entries(openApi.paths as unknown as Record<string, Record<string, Operation>>).flatMap(([template, methods]) =>
  Object.entries(methods).flatMap(([method, op]) => {
    const schema = op.requestBody?.content['application/json']?.schema;
    return schema === undefined ? [] : [{ method: method.toUpperCase(), template, schema }];
  }));

test('every body field the document declares: a NUL or a lone surrogate is a 400 Invalid <field>, nothing runs', async () => {
  assert.ok(operations.length >= 15, 'the document lists the body-taking operations');
  const failures: string[] = [];
  let sent = 0;
  for (const { method, template, schema } of operations) {
    // Path parameters get a UUID: a valid value for every parameter kind, so only the body can be refused.
    const path = template.replace(/\{[^}]+\}/g, () => randomUUID());
    const unique = new Map(fieldPaths(schema).map((p) => [p.join('.'), p]));
    for (const fieldPath of unique.values()) {
      for (const bad of BAD_STRINGS) {
        const res = await fetch(`${setup.broker.url}${path}`, {
          method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(bodyAt(fieldPath, bad)),
        });
        sent += 1;
        const text = await res.text();
        const error = (JSON.parse(text || '{}') as { error?: unknown }).error;
        if (res.status !== 400 || typeof error !== 'string' || !error.startsWith('Invalid ')) {
          failures.push(`${method} ${template} ${fieldPath.join('.')} = ${JSON.stringify(bad)}: ${res.status} ${text}`);
        }
      }
    }
  }
  assert.ok(sent > 100, `${sent} requests`);
  assert.deepEqual(failures, []);
});
