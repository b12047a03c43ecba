/**
 * Moving the deployment to another PostgreSQL (docs/api.md "Migration", docs/operations.md "Moving to another
 * PostgreSQL"): test a target, start (online by logical replication, or offline), status, validate, reset.
 */
import { route, send, type ApiRequester, type CallOptions, type Body, type Wire } from './route.js';

/** Routes of this family. */
export const migrationRoutes = {
  testMigrationConnection: route('testMigrationConnection', 'POST', '/api/v1/migration/test-connection', 'ADMIN'),
  startMigration: route('startMigration', 'POST', '/api/v1/migration/start', 'ADMIN'),
  getMigrationStatus: route('getMigrationStatus', 'GET', '/api/v1/migration/status', 'ADMIN'),
  validateMigration: route('validateMigration', 'POST', '/api/v1/migration/validate', 'ADMIN'),
  resetMigration: route('resetMigration', 'POST', '/api/v1/migration/reset', 'ADMIN'),
} as const;

/** The target database: upstream's body. */
export type MigrationTarget = Wire<'MigrationTarget'>;

/** What a move to the target would meet. */
export type MigrationConnection = Wire<'MigrationConnection'>;

/** The migration as the database in use records it. */
export type MigrationStatus = Wire<'MigrationStatus'>;

/** The status values: `idle`, `dumping`, `restoring`, `complete`, `error` and the online phases. */
export type MigrationStatusValue = MigrationStatus['status'];

/** Row counts per moved table on both databases. */
export type MigrationValidation = Wire<'MigrationValidation'>;

/** Connects to a target and reports its version and suitability. */
export const testMigrationConnection = (http: ApiRequester, target: MigrationTarget, options?: CallOptions): Promise<MigrationConnection> =>
  send(http, migrationRoutes.testMigrationConnection, {}, { body: { ...target } }, options);

/** Starts moving the deployment to `target` (online unless `mode` is offline). */
export const startMigration = (http: ApiRequester, target: Body<'startMigration'>, options?: CallOptions): Promise<MigrationStatus> =>
  send(http, migrationRoutes.startMigration, {}, { body: { ...target } }, options);

/** The migration's status. */
export const getMigrationStatus = (http: ApiRequester, options?: CallOptions): Promise<MigrationStatus> => send(http, migrationRoutes.getMigrationStatus, {}, {}, options);

/** Compares row counts on source and target. */
export const validateMigration = (http: ApiRequester, options?: CallOptions): Promise<MigrationValidation> => send(http, migrationRoutes.validateMigration, {}, {}, options);

/** Cancels a migration before its switch, or clears a finished one. */
export const resetMigration = (http: ApiRequester, options?: CallOptions): Promise<MigrationStatus> => send(http, migrationRoutes.resetMigration, {}, {}, options);
