/**
 * Queen TypeScript client: the fluent API of the official `queen-mq` client (port by changing the import),
 * typed end to end, with zero runtime dependencies. Runs in Node >= 20 and browsers.
 */
import { Queen } from './queen.js';

export { Queen };
export default Queen;
export { QueenError, type QueenErrorCode } from './errors.js';
export { QUEUE_MODE, CLIENT_DEFAULTS, QUEUE_DEFAULTS } from './defaults.js';
export { QueueBuilder } from './queue.js';
export { PushBuilder } from './push.js';
export type { PushCallbacks } from './push-wire.js';
export { ConsumeBuilder, type ConsumeHandler, type ConsumeInput, type ConsumeMode } from './consumer.js';
export { TransactionBuilder, TransactionQueue } from './transaction.js';
export { DLQBuilder } from './dlq.js';
export type { PeekedMessage, PeekOptions } from './peek.js';
export { Admin, type AdminBody } from './admin.js';
export { OperationBuilder } from './operation.js';
export type { HttpResponse, RequestSpec } from './http.js';
export { apiRoutes, routeFor, type ApiOperation } from './api/index.js';
export type { ApiRequester, ApiRoute, CallOptions, NotFoundBody, RefusedBody } from './api/index.js';
export type * from './types.js';
export type { QueenTelemetry, TraceCarrier, TracedMessage } from './telemetry.js';
