/**
 * Request bodies validated at the edge from the OpenAPI document (packages/server/openapi.json), compiled once
 * with ajv when the route table is served (docs/decisions.md, "Request validation from the document").
 *
 * The document describes what a client should send (the SDK's types come from it); the broker refuses less:
 * many fields are read leniently (a non-string `leaseId` is no lease), and each refusal has its exact wire text
 * (docs/api.md). So the edge enforces only the rules the document marks: an object schema's
 * `x-queen-errors` maps a property name to the 400 text of that property (its `type`, and `required` when the
 * object lists it), `""` to the text of the object's own type. A `$ref` may carry its own `x-queen-errors`
 * beside it, which win over the referenced schema's (the same AckItem has other texts inside a batch). A property
 * with several texts maps keyword -> text instead (`{"required": ..., "type": ..., "pattern": ...}`, checked in
 * that order; `keywordSteps`), and `x-queen-coerce: "integer"` reads a digit string as its number first.
 *
 * The derived schema checks the properties of an object one by one, in the document's order (an `allOf` of one
 * property each), and array elements in order, stopping at the first failure: the first error reported is the
 * one the hand-written checks reported, property by property, item by item. What the schema cannot say (the
 * name rule, trace-context syntax, byte sizes, defaults) stays in the route. Query parameters: query-rules.ts.
 */
import fs from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { invalid } from '../errors.js';
import { OPENAPI_PATH } from './routes/openapi.js';
import { QueryRules, type ConfiguredBounds, type QueryDocument } from './query-rules.js';

/** A JSON schema node of the document, as read. */
type Schema = { [keyword: string]: unknown };

/** The parts of the OpenAPI document the validators read. */
export interface RequestDocument {
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema> };
}

/** Throws the route's `invalid` (400) with the document's text when a parsed body breaks a marked rule. */
export type BodyCheck = (body: unknown) => void;

/** The keyword holding the wire text of a derived schema node (an annotation for ajv). */
const TEXT = 'x-queen-error';
/** The keyword of the document that names the texts of an object's properties. */
const TEXTS = 'x-queen-errors';
/** The keyword of a property read from a string as another type first (`"integer"`: decimal digits). */
const COERCE = 'x-queen-coerce';

/** A property's texts per JSON-schema keyword, in the order they are checked. */
type KeywordTexts = Record<string, string>;

/** The request-body validators of one document: per operation, and per component schema. */
export class RequestValidators {
  private readonly ajv = new Ajv2020.default({ strict: true, allowUnionTypes: true, verbose: true, allErrors: false });
  private readonly operations = new Map<string, BodyCheck>();
  private readonly schemas = new Map<string, BodyCheck>();

  constructor(private readonly document: RequestDocument) {
    this.ajv.addKeyword({ keyword: TEXT, schemaType: 'string' });
    this.ajv.addKeyword({
      keyword: COERCE,
      schemaType: 'string',
      modifying: true,
      validate: (_type: string, data: unknown, _schema?: unknown, at?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number }) => {
        if (typeof data === 'string' && /^\d+$/.test(data) && at !== undefined) at.parentData[at.parentDataProperty] = Number(data);
        return true;
      },
    });
    for (const [template, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const schema = requestSchema(operation);
        if (schema === undefined) continue;
        const derived = this.derive(schema, undefined);
        if (Object.keys(derived).length > 0) this.operations.set(`${method.toUpperCase()} ${template}`, this.check(derived));
      }
    }
  }

  /** The check of an operation's body, by method and router path (`:name` parameters), or null: nothing marked. */
  body(method: string, routePath: string): BodyCheck | null {
    return this.operations.get(`${method} ${routePath.replace(/:(\w+)/g, '{$1}')}`) ?? null;
  }

  /** The check of a component schema (`#/components/schemas/<name>`), for a route that reads one inside its body (compiled once). */
  schema(name: string): BodyCheck {
    let check = this.schemas.get(name);
    if (check === undefined) {
      check = this.check(this.derive({ $ref: `#/components/schemas/${name}` }, undefined));
      this.schemas.set(name, check);
    }
    return check;
  }

  private check(derived: Schema): BodyCheck {
    const validate: ValidateFunction = this.ajv.compile(derived);
    return (body) => {
      if (!validate(body)) throw invalid(errorText(validate.errors?.[0]));
    };
  }

  /**
   * The enforced part of a document schema: the type of a marked node (`text`, or its own `""` text), then its
   * marked properties in order, then, for a marked array, its elements. Only marked nodes are entered, so a
   * body whose route reads its parts itself (a transaction's operations) keeps its own order of checks.
   */
  private derive(node: Schema, text: string | undefined): Schema {
    const schema = this.resolve(node);
    const texts = (schema[TEXTS] ?? {}) as Record<string, string | KeywordTexts>;
    const own = text ?? (texts[''] as string | undefined);
    const out: Schema = {};
    if (own !== undefined) {
      if (schema.type === undefined) throw new Error(`${TEXTS} marks a schema without a type: ${JSON.stringify(node)}`);
      out.type = schema.type;
      out[TEXT] = own;
      if (schema.items !== undefined) {
        const items = this.derive(schema.items as Schema, undefined);
        if (Object.keys(items).length > 0) out.items = items;
      }
    }
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = (schema.required ?? []) as string[];
    const steps: Schema[] = [];
    for (const [name, property] of Object.entries(properties)) {
      const marked = texts[name];
      if (marked === undefined) continue;
      if (typeof marked === 'object') {
        steps.push(...this.keywordSteps(name, property, marked, required.includes(name)));
        continue;
      }
      const step: Schema = { properties: { [name]: this.derive(property, marked) } };
      if (required.includes(name)) Object.assign(step, { required: [name], [TEXT]: marked });
      steps.push(step);
    }
    if (steps.length > 0) {
      out.allOf = steps;
      out.type ??= 'object'; // a body (parsed as an object by body.ts): its type needs no text of its own
    }
    return out;
  }

  /**
   * The steps of a property marked with one text per keyword (`{"required": ..., "type": ..., "pattern": ...}`),
   * checked in the order written: `required` refuses an absent or null value; `type` also enters the
   * property's own marks; any other keyword (after `type`) is the property's own value of it. A property's
   * `x-queen-coerce: "integer"` reads a string of decimal digits as its number first (so `type` sees `integer`).
   */
  private keywordSteps(name: string, node: Schema, marks: KeywordTexts, isRequired: boolean): Schema[] {
    const property = this.resolve(node);
    const coerce = property[COERCE];
    const steps: Schema[] = coerce === undefined ? [] : [{ properties: { [name]: { [COERCE]: coerce } } }];
    // A coerced property is of the coerced type afterwards (null stays allowed when the document allows it).
    const type = coerce === undefined ? property.type : [coerce, ...([property.type].flat().includes('null') ? ['null'] : [])];
    let typed = false;
    for (const [keyword, text] of Object.entries(marks)) {
      let check: Schema;
      if (keyword === 'required') {
        if (!isRequired) throw new Error(`${TEXTS} gives a required text to the optional ${name}`);
        steps.push({ required: [name], [TEXT]: text, properties: { [name]: { not: { type: 'null' }, [TEXT]: text } } });
        continue;
      } else if (keyword === 'type') {
        check = { ...this.derive(property, text), type };
        typed = true;
      } else {
        // After the type's own step: the keyword applies to a value of that type (ajv's strictTypes).
        if (!typed || property[keyword] === undefined) throw new Error(`${TEXTS} marks ${name}'s ${keyword} before its type, or its schema lacks it`);
        check = { type, [keyword]: property[keyword], [TEXT]: text };
      }
      steps.push({ properties: { [name]: check } });
    }
    return steps;
  }

  /** A node with its `$ref` followed (siblings win, their `x-queen-errors` merged over the target's). */
  private resolve(node: Schema): Schema {
    if (typeof node.$ref !== 'string') return node;
    const name = node.$ref.replace('#/components/schemas/', '');
    const target = this.document.components?.schemas?.[name];
    if (target === undefined) throw new Error(`unresolved reference ${node.$ref}`);
    const { $ref: _ref, ...siblings } = node;
    const texts = { ...(this.resolve(target)[TEXTS] as object | undefined), ...(siblings[TEXTS] as object | undefined) };
    return { ...this.resolve(target), ...siblings, [TEXTS]: texts };
  }
}

/** The JSON schema of an operation's `application/json` request body, if it has one. */
function requestSchema(operation: unknown): Schema | undefined {
  const body = (operation as { requestBody?: { content?: Record<string, { schema?: Schema }> } }).requestBody;
  return body?.content?.['application/json']?.schema;
}

/** The wire text of ajv's first error: the text of the failing node (every derived rule carries one). */
function errorText(error: ErrorObject | undefined): string {
  const text = (error?.parentSchema as Schema | undefined)?.[TEXT];
  if (typeof text !== 'string') throw new Error(`a derived rule without its text: ${JSON.stringify(error)}`);
  return text;
}

let shipped: RequestValidators | null = null;
let document: unknown = null;

/** The OpenAPI document the broker was built with (read once). */
function shippedDocument(): unknown {
  document ??= JSON.parse(fs.readFileSync(OPENAPI_PATH, 'utf8'));
  return document;
}

/** The query rules of the document the broker was built with, for a configuration's bounds (query-rules.ts). */
export function documentQueryRules(bounds: ConfiguredBounds = {}): QueryRules {
  return new QueryRules(shippedDocument() as QueryDocument, bounds);
}

/** The validators of the document the broker was built with (read and compiled once, on first use). */
export function documentValidators(): RequestValidators {
  shipped ??= new RequestValidators(shippedDocument() as RequestDocument);
  return shipped;
}
