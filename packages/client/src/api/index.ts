/**
 * The typed API layer (`@queen/client/api`): one function per route of docs/api.md §3, each taking what sends the
 * request (an {@link ApiRequester}: the SDK's transport, a `Queen`, or a wrapper adding a caller's rules) and
 * resolving with the route's documented answer. The SDK's builders, the CLI and the dashboard all reach the
 * broker through these functions, so a path is spelled once, here, in {@link apiRoutes}.
 */
import { analyticsRoutes } from './analytics.js';
import { groupRoutes } from './groups.js';
import { messageRoutes } from './messages.js';
import { messagingRoutes } from './messaging.js';
import { resourceRoutes } from './resources.js';
import { matchRoute, type ApiRoute } from './route.js';
import { streamsRoutes } from './streams.js';
import { migrationRoutes } from './migration.js';
import { systemRoutes } from './system.js';

export * from './analytics.js';
export * from './groups.js';
export * from './messages.js';
export * from './messaging.js';
export * from './migration.js';
export * from './resources.js';
export * from './streams.js';
export * from './system.js';
export * from './proxy.js';
export { iso, pathOf, recording, route, send, type RecordingRequester, type ApiAccess, type ApiMethod, type ApiRequester, type ApiRoute, type CallOptions, type NotFoundBody, type PathParamNames, type PathParams, type RefusedBody, type SendInput, type Wire, type Operation, type Reply, type Query, type Body } from './route.js';
export type { components, operations, paths } from './wire.js';
export { createTransport } from './transport.js';
export { Transport, type HttpResponse, type RequestSpec, type TransportOptions } from '../http.js';
export { QueenError, type QueenErrorCode } from '../errors.js';

/** Every route by operation name. */
export const routes = { ...messagingRoutes, ...resourceRoutes, ...messageRoutes, ...groupRoutes, ...systemRoutes, ...analyticsRoutes, ...streamsRoutes, ...migrationRoutes } as const;

/** The name of an operation. */
export type ApiOperation = keyof typeof routes;

/**
 * Every operation of the API as `{operation, method, path, access}`, paths as OpenAPI templates
 * (`/api/v1/resources/queues/{queue}`), in the order of docs/api.md §3's families. Compared with the OpenAPI document.
 */
export const apiRoutes: readonly ApiRoute[] = Object.values(routes);

/** The route `method path` reaches (a query string is ignored), or undefined when none does. */
export const routeFor = (method: string, path: string): ApiRoute | undefined => matchRoute(apiRoutes, method, path);
