/** Binds the message administration of core (delete, requeue, move to the DLQ, clear) to the pool. */
import type pg from 'pg';
import { MessageAdmin } from '../core/message-admin.js';
import type { QueueSignal } from '../core/wake-bus.js';
import { messageDeadLetter, messageDelete, messageRequeue, queueClear } from '../store/message-admin.js';

/** The message administration on `pool`; `origin` marks this process's own notifications, `wake` follows each commit. */
export function createMessageAdmin(pool: pg.Pool, origin: string, wake: (signal: QueueSignal) => void): MessageAdmin {
  return new MessageAdmin({
    store: {
      delete: (params) => messageDelete(pool, params),
      requeue: (params) => messageRequeue(pool, params),
      deadLetter: (params) => messageDeadLetter(pool, { origin, ...params }),
      clear: (params) => queueClear(pool, { origin, ...params }),
    },
    wake,
  });
}
