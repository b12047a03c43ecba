/**
 * What builders need from their `Queen`: the transport, the logger, the buffers and the lifecycle hooks. An
 * interface (not the class) so builders and the client do not import each other.
 */
import type { PushBuffers } from './buffer.js';
import type { Transport } from './http.js';
import type { SafeLogger } from './log.js';
import type { QueenTelemetry } from './telemetry.js';
import type { AckContext, AckResponse, AckStatus, Message, RenewResult } from './types.js';

/** A running consume that `close()` must stop and wait for. */
export interface ActiveConsumer {
  stop(): void;
  readonly done: Promise<unknown>;
}

/** The client services shared by every builder of one `Queen`. */
export interface ClientContext {
  readonly transport: Transport;
  readonly logger: SafeLogger;
  readonly buffers: PushBuffers;
  /** Tracing hooks; null without `telemetry` (no tracing work at all). */
  readonly telemetry: QueenTelemetry | null;
  /** Throws QueenError CLOSED after `close()`. */
  assertOpen(): void;
  /** Registers a consume so `close()` stops it; returns the unregister function. */
  track(consumer: ActiveConsumer): () => void;
  ack(target: Message | Message[] | string, status?: boolean | AckStatus, context?: AckContext): Promise<AckResponse>;
  renew(target: Array<string | Message>, seconds?: number): Promise<RenewResult[]>;
}
