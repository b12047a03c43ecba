/**
 * A pop attempt inside an explicit database transaction. An autoAck claim commits the cursor in the same
 * transaction that reads the messages, so a check that must be able to undo the claim (opening sealed
 * payloads, API.md 9.6: an undecryptable batch is a procedure error and consumes nothing) runs between the
 * claim and the COMMIT; a throw rolls everything back.
 */
import type pg from 'pg';
import { cursorClaim, type ClaimOutcome, type ClaimParams } from './cursors.js';
import { databaseTransaction } from './transaction.js';

/** Runs one pop attempt and `check` on its outcome in one transaction; a throwing check rolls the claim back. */
export function cursorClaimChecked(
  db: pg.Pool,
  params: ClaimParams,
  check: (outcome: ClaimOutcome) => void,
): Promise<ClaimOutcome> {
  return databaseTransaction(db, {
    begin: 'BEGIN',
    async work(client) {
      const outcome = await cursorClaim(client, params);
      check(outcome);
      return { commit: true, value: outcome };
    },
  });
}
