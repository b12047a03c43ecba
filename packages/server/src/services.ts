/** What the HTTP routes may call: the core services and the few store operations they use directly. */
import type { Config } from './config.js';
import type { AckService } from './core/ack.js';
import type { PopService } from './core/pop.js';
import type { PushService } from './core/push.js';
import type { Logger } from './logger.js';
import type { LeaseExtendResult } from './store/cursors.js';
import type { queueConfigure, queueDescribe } from './store/queues.js';

type WithoutDb<F> = F extends (db: never, ...rest: infer A) => infer R ? (...args: A) => R : never;

/** The broker's services, as the HTTP layer sees them. */
export interface Services {
  config: Config;
  log: Logger;
  version: string;
  serverId: string;
  encryptionConfigured: boolean;
  push: PushService;
  pop: PopService;
  ack: AckService;
  queues: {
    configure: WithoutDb<typeof queueConfigure>;
    describe: WithoutDb<typeof queueDescribe>;
    delete: (params: { name: string }) => Promise<boolean>;
  };
  extendLease(leaseId: string, seconds: number): Promise<LeaseExtendResult>;
  releaseLease(leaseId: string): Promise<void>;
  health: { databaseReachable(): Promise<boolean>; draining(): boolean };
}
