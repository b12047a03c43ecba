/**
 * Pop delivers the original JSON payloads (API.md 5.12, 9.6): sealed payloads of a claimed batch are opened
 * before the response is built. A batch without sealed payloads is passed through untouched.
 *
 * A payload that cannot be opened (no key, another key, a modified row) fails the attempt as a procedure
 * error (204 `error`) and hands back what the attempt took: a leasing claim's leases are released at once, so
 * a broker holding the right key can deliver the batch without waiting for the lease to expire; an autoAck
 * claim runs its check inside the claim's own transaction, which is rolled back, so its cursor never moves
 * past messages nobody could read.
 */
import type { ClaimOutcome, ClaimParams } from '../store/cursors.js';
import type { PayloadReader } from './payload-cipher.js';

/** The database operations the opening claim is built from. */
export interface ClaimSteps {
  /** One pop attempt (it commits on its own). */
  claim(params: ClaimParams): Promise<ClaimOutcome>;
  /** One pop attempt whose outcome `check` sees before the commit; a throw rolls the attempt back. */
  claimChecked(params: ClaimParams, check: (outcome: ClaimOutcome) => void): Promise<ClaimOutcome>;
  /** Releases the leases a pop request took. */
  release(leaseId: string): Promise<void>;
}

/** A claim function whose delivered payloads are plain JSON text; throws PayloadDecryptError otherwise. */
export function openingClaim(reader: PayloadReader, steps: ClaimSteps): (params: ClaimParams) => Promise<ClaimOutcome> {
  const open = (outcome: ClaimOutcome): void => {
    if (outcome.kind === 'messages') reader.openAll(outcome.messages);
  };
  return async (params) => {
    if (params.autoAck) return steps.claimChecked(params, open);
    const outcome = await steps.claim(params);
    try {
      open(outcome);
    } catch (error) {
      await steps.release(params.leaseId).catch(() => undefined); // not released: the lease simply expires
      throw error;
    }
    return outcome;
  };
}
