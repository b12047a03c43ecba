/**
 * Matching /ack/batch answers to the acknowledgments sent.
 *
 * Design: a result names its message by transactionId (and, on brokers that say so, partitionId); `index`
 * is only a hint. A broker may merge concurrent ack batches into one database call and renumber `index`
 * (upstream Queen does), so a result is matched to the first unmatched request item with the same
 * (transactionId, partitionId) when the result carries a partitionId, else the same transactionId. Only a
 * result without a transactionId falls back to its `index` (or its position in the answer).
 */

/** The part of an acknowledgment a result is matched on. */
export interface AckKey {
  transactionId: string;
  partitionId: string;
}

/** One result of an /ack/batch answer, as parsed from the wire. */
export interface AckResultItem {
  success: boolean;
  error: string | null;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
}

/**
 * The result for each request item, in request order (undefined where the answer has none). `answer` is
 * the parsed JSON array of a 200 /ack/batch answer; anything else matches nothing.
 */
export function matchAckResults(requested: readonly AckKey[], answer: unknown): (AckResultItem | undefined)[] {
  const matched: (AckResultItem | undefined)[] = requested.map(() => undefined);
  if (!Array.isArray(answer)) return matched;
  // Unmatched request positions per transactionId and per (transactionId, partitionId), in request order.
  const byTransaction = new Map<string, number[]>();
  const byPair = new Map<string, number[]>();
  requested.forEach((item, position) => {
    byTransaction.set(item.transactionId, [...(byTransaction.get(item.transactionId) ?? []), position]);
    const pair = `${item.transactionId}\u0000${item.partitionId}`;
    byPair.set(pair, [...(byPair.get(pair) ?? []), position]);
  });
  const take = (positions: number[] | undefined): number | undefined => {
    while (positions !== undefined && positions.length > 0) {
      const position = positions.shift()!;
      if (matched[position] === undefined) return position;
    }
    return undefined;
  };
  answer.forEach((raw: unknown, answerPosition) => {
    if (!isRecord(raw)) return;
    const result = { success: raw['success'] === true, error: str(raw['error']) };
    const transactionId = str(raw['transactionId'] ?? raw['transaction_id']);
    const partitionId = str(raw['partitionId'] ?? raw['partition_id']);
    let position: number | undefined;
    if (transactionId === null) {
      const index = typeof raw['index'] === 'number' ? raw['index'] : answerPosition;
      position = index >= 0 && index < requested.length && matched[index] === undefined ? index : undefined;
    } else if (partitionId !== null) {
      position = take(byPair.get(`${transactionId}\u0000${partitionId}`));
    } else {
      position = take(byTransaction.get(transactionId));
    }
    if (position !== undefined) matched[position] = result;
  });
  return matched;
}
