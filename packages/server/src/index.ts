/** The server package's public surface: the broker itself and the embedded PostgreSQL it can start. */
export { Broker } from './broker.js';
export { loadConfig, type Config } from './config.js';
export {
  embeddedPackageDir, grantPostgresAccess, loadEmbeddedPostgres, startEmbeddedPostgres, type EmbeddedServer,
} from './store/embedded.js';
