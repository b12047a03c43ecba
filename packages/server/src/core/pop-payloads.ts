/**
 * Pop delivers the original JSON payloads (API.md 5.12, 9.6): sealed payloads of a claimed batch are opened
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
import type { PayloadReader } from './payload-cipher.js';

/** The database operations and knowledge the opening claim is built from. */
export interface ClaimSteps {
  /** One pop attempt (it commits on its own). */
  claim(params: ClaimParams): Promise<ClaimOutcome>;
  /** One pop attempt whose outcome `check` sees before the commit; a throw rolls the attempt back. */
  claimChecked(params: ClaimParams, check: (outcome: ClaimOutcome) => void): Promise<ClaimOutcome>;
  /** Releases the leases a pop request took. */
  release(leaseId: string): Promise<void>;
  /** Whether the queue may hold sealed payloads (it ever had encryption enabled). */
  mayHoldSealed(queue: string): Promise<boolean>;
}

/** A claim function whose delivered payloads are plain JSON text; throws PayloadDecryptError otherwise. */
export function openingClaim(reader: PayloadReader, steps: ClaimSteps): (params: ClaimParams) => Promise<ClaimOutcome> {
  const open = (outcome: ClaimOutcome): void => {
    if (outcome.kind === 'messages') reader.openAll(outcome.messages);
  };
  return async (params) => {
    if (params.autoAck && (params.queue === null || (await steps.mayHoldSealed(params.queue)))) {
      return steps.claimChecked(params, open);
    }
    const outcome = await steps.claim(params);
    try {
      open(outcome);
    } catch (error) {
      // A leasing claim hands its leases back (if that fails, they simply expire). An autoAck claim lands
      // here only when its queue's view was stale (encryption turned on moments ago elsewhere) and this
      // broker cannot read what was sealed since: its cursor has moved; the pop still fails.
      if (!params.autoAck) await steps.release(params.leaseId).catch(() => undefined);
      throw error;
    }
    return outcome;
  };
}
