/**
 * Pop delivers the original JSON payloads (docs/api.md 5.12, 9.6): sealed payloads of a claimed batch are opened
 * before the response is built. A batch without sealed payloads is passed through untouched.
 *
 * A payload that cannot be opened (no key, another key, a modified row) fails the attempt as a procedure
 * error (204 `error`) and hands back what the attempt took. A leasing claim's leases are released at once,
 * so a broker holding the right key can deliver the batch without waiting for the lease to expire. An autoAck
 * claim has already moved its cursor when it returns, so for a queue that may hold sealed payloads (it had
 * encryption enabled at some point; every discovery pop, whose queues are not known in advance) the claim and
 * the decryption run in one explicit transaction, rolled back on failure. Queues that never had encryption
 * keep the single-statement autoAck pop: the transaction costs two more round trips (BEGIN, COMMIT).
 */
import type { ClaimOutcome, ClaimParams } from '../store/cursors.js';
import type { Store } from '../store/index.js';
import type { PayloadReader } from './payload-cipher.js';

/** The statements of a claim: the attempt, the transaction around a checked one, the release of its leases. */
export type ClaimStore = Pick<Store, 'cursorClaim' | 'leaseRelease' | 'transaction'>;

/** Whether a queue may hold sealed payloads (it ever had encryption enabled): `QueueEncryptionView`. */
export interface SealedQueues {
  mayHoldSealed(queue: string): Promise<boolean>;
}

/** A claim function whose delivered payloads are plain JSON text; throws PayloadDecryptError otherwise. */
export function openingClaim(reader: PayloadReader, store: ClaimStore, sealed: SealedQueues): (params: ClaimParams) => Promise<ClaimOutcome> {
  const open = (outcome: ClaimOutcome): void => {
    if (outcome.kind === 'messages') reader.openAll(outcome.messages);
  };
  return async (params) => {
    if (params.autoAck && (params.queue === null || (await sealed.mayHoldSealed(params.queue)))) {
      // The claim and the opening in one transaction: a payload that cannot be opened rolls the claim back.
      return store.transaction(async (tx) => {
        const outcome = await tx.cursorClaim(params);
        open(outcome);
        return { commit: true, value: outcome };
      });
    }
    const outcome = await store.cursorClaim(params);
    try {
      open(outcome);
    } catch (error) {
      // A leasing claim hands its leases back (if that fails, they simply expire). An autoAck claim lands
      // here only when its queue's view was stale (encryption turned on moments ago elsewhere) and this
      // broker cannot read what was sealed since: its cursor has moved; the pop still fails.
      if (!params.autoAck) await store.leaseRelease({ leaseId: params.leaseId, origin: '' }).catch(() => undefined);
      throw error;
    }
    return outcome;
  };
}
