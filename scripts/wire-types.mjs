#!/usr/bin/env node
// Derives the TypeScript types of every wire shape from the OpenAPI document (packages/server/openapi.json, the
// one source of the HTTP API's shapes; docs/decisions.md "One source for wire shapes") with openapi-typescript:
// packages/client/src/api/wire.ts, types only. The SDK's API layer, the server's reply builders, the CLI and the
// dashboard import their shapes from it, so a field renamed in the document breaks the build of each until it follows.
//
//   node scripts/wire-types.mjs   rewrites wire.ts when the document changed (the first step of build and typecheck,
//                                 and of the image build)
//
// The file is not committed: the document is the only source. It is written only when its text changes, so
// incremental builds stay incremental.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = path.join(root, 'packages/server/openapi.json');
const TARGET = path.join(root, 'packages/client/src/api/wire.ts');

const HEADER = `/**
 * The wire shapes of the Queen HTTP API, generated from packages/server/openapi.json by scripts/wire-types.mjs
 * (openapi-typescript). Do not edit: change the document, then build. Types only: nothing here exists at run time.
 */
`;

const ast = await openapiTS(JSON.parse(fs.readFileSync(SOURCE, 'utf8')), { alphabetize: false, defaultNonNullable: false, emptyObjectsUnknown: true });
const text = HEADER + astToString(ast);
const current = fs.existsSync(TARGET) ? fs.readFileSync(TARGET, 'utf8') : '';

if (current !== text) fs.writeFileSync(TARGET, text);
