/**
 * `queen.ack()` and `queen.renew()` (docs/client.md). Acks default to the message's own group and echo
 * its leaseId, so an ack can never settle another group's cursor by accident. Unlike the official client the
 * answer reports per-item failures (`success` false, `failed` listed). Acks are idempotent on the broker, so
 * transport failures are retried by the transport and then reported in the answer rather than thrown.
 */
import { errorMessage, QueenError } from './errors.js';
import { ackBatch, ackMessage, extendLease } from './api/messaging.js';
import type { Transport } from './http.js';
import type { AckBatchResponse, AckContext, AckItemResult, AckResponse, AckStatus, Message, RenewResult } from './types.js';

interface WireAck {
  transactionId: string;
  partitionId: string;
  status: AckStatus;
  error: string | null;
  consumerGroup?: string;
  leaseId?: string;
}

/** `true` -> completed, `false` -> failed, strings as given. */
export function ackStatus(status: boolean | AckStatus | undefined): AckStatus {
  if (status === undefined || status === true) return 'completed';
  if (status === false) return 'failed';
  return status;
}

function wireAck(target: Message | string, status: AckStatus, context: AckContext, withGroup: boolean): WireAck {
  let transactionId: string | undefined;
  let partitionId: string | undefined;
  let leaseId: string | undefined;
  let group: string | undefined;
  if (typeof target === 'string') {
    transactionId = target;
    partitionId = context.partitionId;
    leaseId = context.leaseId;
  } else {
    transactionId = target.transactionId || target.id;
    partitionId = target.partitionId;
    leaseId = target.leaseId;
    group = target.consumerGroup;
  }
  if (!transactionId) throw new QueenError('VALIDATION', 'Message has no transactionId');
  if (!partitionId) throw new QueenError('VALIDATION', 'partitionId is required to ack a message');
  const item: WireAck = { transactionId, partitionId, status, error: context.error ?? null };
  const consumerGroup = context.group ?? context.consumerGroup ?? group;
  if (withGroup && consumerGroup) item.consumerGroup = consumerGroup;
  if (leaseId) item.leaseId = leaseId;
  return item;
}

function toItem(raw: Partial<AckItemResult> | undefined, index: number, sent: WireAck): AckItemResult {
  return {
    index: raw?.index ?? index,
    transactionId: raw?.transactionId ?? sent.transactionId,
    success: raw?.success === true,
    error: raw?.error ?? (raw?.success === true ? null : 'No result for this item'),
    queueName: raw?.queueName ?? null,
    partitionName: raw?.partitionName ?? null,
    leaseReleased: raw?.leaseReleased === true,
    dlq: raw?.dlq === true,
  };
}

/** The answer to an ack: for an array target an array of the results (AckBatchResponse), else an object. */
function response(results: AckItemResult[], error: string | undefined, batch: boolean): AckResponse {
  const failed = results.filter((r) => !r.success);
  const summary: Omit<AckResponse, number> = { success: error === undefined && failed.length === 0, results, failed };
  if (error !== undefined) summary.error = error;
  else if (failed.length > 0) summary.error = failed[0]!.error ?? 'Ack failed';
  if (batch) return Object.assign([...results], summary) satisfies AckBatchResponse;
  const answer: AckResponse = summary;
  results.forEach((r, i) => (answer[i] = r));
  return answer;
}

/** Acks one message, a transactionId, or a batch. */
export async function ack(transport: Transport, target: Message | Message[] | string, status?: boolean | AckStatus, context: AckContext = {}): Promise<AckResponse> {
  const base = ackStatus(status);
  let send: (http: Transport) => Promise<unknown>;
  let sent: WireAck[];
  if (Array.isArray(target)) {
    if (target.length === 0) return response([], undefined, true);
    const group = context.group ?? context.consumerGroup;
    sent = target.map((m) => wireAck(m, m._status ?? base, { ...context, ...(m._error !== undefined ? { error: m._error } : {}) }, group === undefined));
    const body = group === undefined ? { acknowledgments: sent } : { acknowledgments: sent, consumerGroup: group };
    send = (http) => ackBatch(http, body);
  } else {
    sent = [wireAck(target, base, context, true)];
    const body = sent[0]!;
    send = (http) => ackMessage(http, body);
  }
  try {
    const answer = await send(transport);
    const raw = Array.isArray(answer) ? (answer as Partial<AckItemResult>[]) : [];
    return response(sent.map((item, i) => toItem(raw[i], i, item)), undefined, Array.isArray(target));
  } catch (error) {
    return response([], errorMessage(error), Array.isArray(target));
  }
}

/** Extends the leases of the targets: one request per distinct non-empty lease id, in first-seen order. */
export async function renew(transport: Transport, targets: Array<string | Message>, seconds?: number): Promise<RenewResult[]> {
  const leaseIds = [...new Set(targets.map((t) => (typeof t === 'string' ? t : t.leaseId)).filter((id): id is string => typeof id === 'string' && id !== ''))];
  return Promise.all(
    leaseIds.map(async (leaseId): Promise<RenewResult> => {
      try {
        const answer: unknown = await extendLease(transport, leaseId, seconds === undefined ? {} : { seconds });
        const item = (Array.isArray(answer) ? answer[0] : answer) as { success?: boolean; newExpiresAt?: string | null; expiresAt?: string | null; error?: string | null } | undefined;
        return { leaseId, success: item?.success === true, newExpiresAt: item?.newExpiresAt ?? item?.expiresAt ?? null, error: item?.error ?? null };
      } catch (error) {
        return { leaseId, success: false, newExpiresAt: null, error: errorMessage(error) };
      }
    }),
  );
}
