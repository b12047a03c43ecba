#!/usr/bin/env node
// Renders the OpenAPI document (packages/server/openapi.json, the source of truth of the HTTP API) as the
// page people read: docs/api-reference.md. Routes are grouped by tag, each with its method, path, access
// level, parameters, request body and responses with their statuses and error texts; the schemas follow.
//
//   node scripts/api-docs.mjs            writes docs/api-reference.md
//   node scripts/api-docs.mjs --stdout   prints it instead (the drift test compares that with the file)
//
// No dependencies and no clock: the same document always gives the same page, byte for byte.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = path.join(root, 'packages/server/openapi.json');
const TARGET = path.join(root, 'docs/api-reference.md');
const doc = JSON.parse(fs.readFileSync(SOURCE, 'utf8'));

const refName = (ref) => ref.split('/').pop();
const resolve = (obj, kind) => (obj && obj.$ref ? doc.components[kind][refName(obj.$ref)] : obj);
const anchor = (text) => text.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-');
/** Text for one table cell: no pipes or line breaks. */
const cell = (text) => (text ?? '').replace(/\|/g, '\\|').replace(/\n+/g, ' ');

/** A schema in a few words, with links to the named schemas. */
function typeOf(schema) {
  if (schema === undefined || Object.keys(schema).length === 0) return 'any JSON';
  if (schema.$ref) return `[${refName(schema.$ref)}](#${anchor(refName(schema.$ref))})`;
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum) return schema.enum.map((v) => `\`${v}\``).join(', ');
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' or ');
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'object'];
  return types.map((t) => {
    if (t === 'array') return `array of ${typeOf(schema.items)}`;
    if (t === 'object' && schema.additionalProperties && typeof schema.additionalProperties === 'object') return `object of ${typeOf(schema.additionalProperties)}`;
    if (t === 'string' && schema.format) return `string (${schema.format})`;
    return t;
  }).join(' or ');
}

/** Range and default of a parameter's schema. */
function constraints(schema) {
  const parts = [];
  if (schema.minimum !== undefined && schema.maximum !== undefined) parts.push(`${schema.minimum}..${schema.maximum}`);
  else if (schema.minimum !== undefined) parts.push(`>= ${schema.minimum}`);
  else if (schema.maximum !== undefined) parts.push(`<= ${schema.maximum}`);
  if (schema.maxLength !== undefined) parts.push(`${schema.minLength ?? 0}..${schema.maxLength} characters`);
  return parts.join(', ');
}

/** The fields of an object schema as table rows (inline objects one level deep). */
function fieldRows(schema) {
  const required = new Set(schema.required ?? []);
  // x-queen-errors: the 400 text the broker answers when the field is missing or of another type, or one text per
  // schema keyword (http/validation.ts).
  const refusals = schema['x-queen-errors'] ?? {};
  const texts = (marked) => [...new Set(typeof marked === 'string' ? [marked] : Object.values(marked))].map((text) => `\`${text}\``).join(' or ');
  return Object.entries(schema.properties ?? {}).map(([name, field]) => {
    const inline = field.type === 'object' && field.properties ? `object {${Object.keys(field.properties).join(', ')}}` : typeOf(field);
    const refusal = refusals[name] === undefined ? '' : `Otherwise 400 ${texts(refusals[name])}.`;
    return `| \`${name}\` | ${cell(inline)} | ${required.has(name) ? 'yes' : 'no'} | ${cell([field.description, field.default !== undefined ? `Default \`${JSON.stringify(field.default)}\`.` : '', refusal].filter(Boolean).join(' '))} |`;
  });
}

function renderOperation(method, template, op) {
  const lines = [`### \`${method.toUpperCase()} ${template}\``, '', `${op.summary}.`, ''];
  const access = op['x-queen-access'];
  lines.push(access === 'PUBLIC' ? 'Access: **PUBLIC** (never authenticated).' : `Access: **${access}** (a bearer token whose role reaches ${access} when authentication is on).`, '');
  lines.push(`Operation id: \`${op.operationId}\``, '');
  if (op.description) lines.push(op.description, '');
  const params = (op.parameters ?? []).map((p) => resolve(p, 'parameters'));
  if (params.length > 0) {
    lines.push('| Parameter | In | Type | Range | Default | Description |', '|---|---|---|---|---|---|');
    for (const p of params) lines.push(`| \`${p.name}\` | ${p.in} | ${cell(typeOf(p.schema))} | ${cell(constraints(p.schema))} | ${p.schema.default === undefined ? '' : `\`${p.schema.default}\``} | ${cell(p.description)} |`);
    lines.push('');
  }
  if (op.requestBody) {
    const schema = op.requestBody.content['application/json'].schema;
    lines.push(`Request body (${op.requestBody.required ? 'required' : 'optional; empty means `{}`'}): ${typeOf(schema)}`, '');
    if (!schema.$ref && schema.properties) lines.push('| Field | Type | Required | Description |', '|---|---|---|---|', ...fieldRows(schema), '');
  }
  lines.push('Responses:', '');
  for (const [status, raw] of Object.entries(op.responses)) {
    if (raw.$ref) {
      // A shared answer (authentication, limits, server errors): described once, under "Shared responses".
      const name = refName(raw.$ref);
      lines.push(`- **${status}**: ${doc.components.responses[name].description.split('\n')[0]} See [${name}](#${anchor(name)}).`);
      continue;
    }
    const response = raw;
    const media = response.content ? Object.entries(response.content)[0] : null;
    const body = media === null ? 'no body' : media[0] === 'application/json' ? typeOf(media[1].schema) : `\`${media[0]}\``;
    const headers = Object.entries(response.headers ?? {}).map(([name]) => `header \`${name}\``);
    const [first, ...rest] = response.description.split('\n');
    lines.push(`- **${status}** (${[body, ...headers].join('; ')}): ${first}`);
    for (const line of rest.filter((l) => l.trim() !== '')) lines.push(`  ${line}`);
  }
  lines.push('');
  return lines;
}

function renderSchema(name, schema) {
  const lines = [`### ${name}`, ''];
  if (schema.description) lines.push(schema.description, '');
  if (schema.type === 'array') lines.push(`An ${typeOf(schema)}.`, '');
  const object = schema.type === 'array' ? schema.items : schema;
  if (object && object.properties) {
    lines.push('| Field | Type | Required | Description |', '|---|---|---|---|', ...fieldRows(object), '');
    if (object.additionalProperties === false) lines.push('No other fields.', '');
    if (object['x-queen-errors']?.[''] !== undefined) lines.push(`Not an object: 400 \`${object['x-queen-errors']['']}\`.`, '');
  } else if (schema.type !== 'array' && !schema.description) lines.push(`${typeOf(schema)}.`, '');
  return lines;
}

export function render() {
  const operations = Object.entries(doc.paths).flatMap(([template, item]) => Object.entries(item).map(([method, op]) => ({ method, template, op })));
  const lines = [
    `# ${doc.info.title} reference`,
    '',
    '<!-- Generated by scripts/api-docs.mjs from packages/server/openapi.json: do not edit; change the document and run `node scripts/api-docs.mjs`. -->',
    '',
    `Version ${doc.info.version}. The broker serves the same document at \`GET /openapi.json\`. The rules behind these routes (delivery, leases, acks, ordering) are in [api.md](api.md).`,
    '',
    doc.info.description.replace(/^.*\n\n/, ''),
    '',
    '## Routes',
    '',
    '| Method | Path | Access | Summary |',
    '|---|---|---|---|',
    ...operations.map(({ method, template, op }) => `| ${method.toUpperCase()} | [\`${template}\`](#${anchor(`${method} ${template}`)}) | ${op['x-queen-access']} | ${cell(op.summary)} |`),
    '',
  ];
  for (const tag of doc.tags) {
    const ofTag = operations.filter(({ op }) => op.tags[0] === tag.name);
    if (ofTag.length === 0) continue;
    lines.push(`## ${tag.name}`, '');
    for (const { method, template, op } of ofTag) lines.push(...renderOperation(method, template, op));
  }
  lines.push('## Shared responses', '', 'Answers every route may give (authentication, limits, database trouble), referred to from the routes above.', '');
  for (const [name, response] of Object.entries(doc.components.responses)) {
    lines.push(`### ${name}`, '', response.description, '');
    const headers = Object.keys(response.headers ?? {});
    if (headers.length > 0) lines.push(`Headers: ${headers.map((h) => `\`${h}\``).join(', ')}.`, '');
  }
  lines.push('## Schemas', '');
  for (const [name, schema] of Object.entries(doc.components.schemas)) lines.push(...renderSchema(name, schema));
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

if (process.argv.includes('--stdout')) process.stdout.write(render());
else {
  fs.writeFileSync(TARGET, render());
  console.log(`wrote ${path.relative(root, TARGET)}`);
}
