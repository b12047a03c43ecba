/**
 * Turns a pop body into `Message` objects and attaches `trace()` (docs/client.md) as a non-enumerable method, so
 * a message still serialises to exactly the broker's fields.
 */
import { recordTrace as postTrace } from './api/messages.js';
import type { PoppedMessage } from './api/messaging.js';
import { errorMessage } from './errors.js';
import type { Transport } from './http.js';
import type { Message, TraceEvent, TraceResult } from './types.js';

/** The messages of a pop body (null for a 204), with `trace()` attached. */
export function messagesFrom<T>(body: unknown, transport: Transport): Message<T>[] {
  const list = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(list)) return [];
  return list.map((raw) => attachTrace<T>({ ...(raw as PoppedMessage) }, transport));
}

/** Records a trace event; never throws. */
export async function recordTrace(transport: Transport, message: Pick<Message, 'transactionId' | 'partitionId' | 'consumerGroup'>, event: TraceEvent): Promise<TraceResult> {
  const names = event.traceName === undefined ? null : Array.isArray(event.traceName) ? event.traceName : [event.traceName];
  try {
    const body = await postTrace(transport, {
        transactionId: message.transactionId,
        partitionId: message.partitionId,
        consumerGroup: message.consumerGroup,
        traceNames: names,
        eventType: event.eventType ?? 'info',
        data: event.data,
    });
    if (body?.success === true && typeof body.traceId === 'string') return { success: true, traceId: body.traceId };
    return { success: false, error: (body as { error?: string } | null)?.error ?? 'Trace not recorded' };
  } catch (error) {
    return { success: false, error: errorMessage(error) };
  }
}

function attachTrace<T>(raw: PoppedMessage, transport: Transport): Message<T> {
  Object.defineProperty(raw, 'trace', {
    value: (event: TraceEvent) => recordTrace(transport, raw, event),
    enumerable: false,
    writable: false,
    configurable: true,
  });
  return raw as unknown as Message<T>;
}
