/**
 * The HTTP contract as the tests hold the broker to it: packages/server/openapi.json, compiled with ajv (JSON
 * Schema 2020-12, the dialect of OpenAPI 3.1) and formats. `checkResponse()` finds the operation a request
 * reached (the router's rule: literal segments win over parameters), and requires its status to be documented
 * for that operation, its JSON body to match the documented schema, its required headers to be present and
 * its documented headers to hold documented values. A response that drifts from the document therefore
 * fails the test that received it (harness.ts checks every response of a broker it started).
 *
 * Not checked: bodies that are not JSON (the Prometheus text, the dashboard's static files: they have no
 * schema) and paths no operation serves (their 404 only has to be the error shape).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

export const OPENAPI_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../openapi.json');

/** The parts of the document the checks read. */
interface MediaType { schema?: unknown }
interface Header { required?: boolean; schema?: unknown; $ref?: string }
interface Response { $ref?: string; description: string; headers?: Record<string, Header>; content?: Record<string, MediaType> }
interface Operation { operationId: string; responses: Record<string, Response>; 'x-queen-access': string }
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, Response>; headers?: Record<string, Header> };
}

export const openApi = JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8')) as OpenApiDocument;

const DOCUMENT_ID = 'queen:openapi';
const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);
// The whole document is registered once; schemas are compiled as JSON pointers into it, so the
// `#/components/schemas/...` references inside them resolve against the document.
ajv.addSchema(openApi as object, DOCUMENT_ID);

/** A JSON pointer as a URI fragment (`~` and `/` escaped, then percent-encoded: path templates hold `{}`). */
const pointer = (...parts: string[]): string => parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
const validators = new Map<string, ValidateFunction>();
function validatorAt(ref: string): ValidateFunction {
  let v = validators.get(ref);
  if (v === undefined) {
    v = ajv.compile({ $ref: `${DOCUMENT_ID}#/${ref}` });
    validators.set(ref, v);
  }
  return v;
}

/** One operation of the document with its path template. */
interface Found { template: string; method: string; operation: Operation }

const templates = Object.keys(openApi.paths).map((template) => ({ template, segments: template.split('/').slice(1) }));

/** The operation serving `method rawPath`, by the router's rules (one trailing `/` ignored, literals first). */
export function findOperation(method: string, rawPath: string): Found | null {
  const lower = method.toLowerCase();
  let p = rawPath;
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  const segments = p.split('/').slice(1);
  let best: { found: Found; rank: number[] } | null = null;
  for (const { template, segments: parts } of templates) {
    const operation = openApi.paths[template]![lower];
    if (operation === undefined || parts.length !== segments.length) continue;
    const rank: number[] = [];
    let fits = true;
    for (let i = 0; i < parts.length; i++) {
      const isParam = parts[i]!.startsWith('{');
      if (isParam ? segments[i]!.length === 0 : parts[i] !== segments[i]) fits = false;
      rank.push(isParam ? 1 : 0);
    }
    if (!fits) continue;
    if (best === null || rank.join() < best.rank.join()) best = { found: { template, method: lower, operation }, rank };
  }
  return best?.found ?? null;
}

/** A response object and the JSON pointer it lives at (`$ref`s to components/responses followed). */
function responseAt(found: Found, status: number): { response: Response; at: string[] } | null {
  const own = found.operation.responses[String(status)];
  if (own === undefined) return null;
  if (own.$ref === undefined) return { response: own, at: ['paths', found.template, found.method, 'responses', String(status)] };
  const name = own.$ref.split('/').pop()!;
  return { response: openApi.components.responses[name]!, at: ['components', 'responses', name] };
}

function headerOf(header: Header): Header {
  if (header.$ref === undefined) return header;
  return openApi.components.headers![header.$ref.split('/').pop()!]!;
}

/** What went wrong with one response, or null when it keeps the contract. */
export function contractViolation(method: string, rawPath: string, status: number, headers: Headers, text: string): string | null {
  if (method.toUpperCase() === 'OPTIONS' || method.toUpperCase() === 'HEAD') return null; // no body; CORS preflight is global
  const isJson = (headers.get('content-type') ?? '').startsWith('application/json');
  const found = findOperation(method, rawPath);
  if (found === null) {
    // No operation: the 404 of an unserved route, or one of the dashboard's files (its JSON settings
    // `/dashboard-config.json` included), which are not part of the API.
    if (!isJson || status < 400) return null;
    const check = validatorAt(pointer('components', 'schemas', 'Error'));
    return check(JSON.parse(text)) ? null : `unrouted ${status} body is not the error shape: ${ajv.errorsText(check.errors)}`;
  }
  const where = `${found.operation.operationId} (${method.toUpperCase()} ${found.template})`;
  const documented = responseAt(found, status);
  if (documented === null) return `${where}: status ${status} is not documented (documented: ${Object.keys(found.operation.responses).join(', ')})`;
  const { response, at } = documented;
  for (const [name, raw] of Object.entries(response.headers ?? {})) {
    const header = headerOf(raw);
    const value = headers.get(name);
    if (value === null) {
      if (header.required === true) return `${where}: ${status} lacks the required header ${name}`;
      continue;
    }
    const enumerated = (header.schema as { enum?: unknown[] } | undefined)?.enum;
    if (enumerated !== undefined && !enumerated.includes(value)) return `${where}: header ${name}: ${value} is not one of ${enumerated.join(', ')}`;
  }
  const content = response.content;
  if (content === undefined) return text.length === 0 ? null : `${where}: ${status} is documented without a body, got ${text.slice(0, 200)}`;
  if (!isJson) {
    const type = headers.get('content-type') ?? '';
    return Object.keys(content).some((t) => type.startsWith(t)) ? null : `${where}: ${status} Content-Type ${type} is not documented`;
  }
  if (content['application/json'] === undefined) return `${where}: ${status} answered JSON, documented ${Object.keys(content).join(', ')}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${where}: ${status} body is not JSON: ${text.slice(0, 200)}`;
  }
  const check = validatorAt(pointer(...at, 'content', 'application/json', 'schema'));
  if (check(body)) return null;
  return `${where}: ${status} body does not match the document: ${ajv.errorsText(check.errors, { separator: '; ' })}\nbody: ${text.slice(0, 600)}`;
}
