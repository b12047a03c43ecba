/**
 * `GET /openapi.json` (PUBLIC, like /health): the OpenAPI 3.1 description of the HTTP API
 * (packages/server/openapi.json, the checked-in source of truth; docs/api-reference.md is rendered from it).
 * Read once when the route table is built, so a request costs no disk read and the document served is the one
 * the running broker was built with.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Route } from '../route.js';

/** The document's path: three levels above this file, from src/http/routes as from dist/http/routes. */
export const OPENAPI_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../openapi.json');

/** The OpenAPI route. */
export function openApiRoutes(): Route[] {
  const document = fs.readFileSync(OPENAPI_PATH, 'utf8');
  return [
    {
      method: 'GET',
      path: '/openapi.json',
      access: 'PUBLIC',
      async handle() {
        return { status: 200, body: document };
      },
    },
  ];
}
