/**
 * The streams service the routes call (STREAMS.md 3): registration, cycles and shard reads over the state
 * store functions the broker hands it (store/streams.ts), with the sealed append and the wake-ups of the rest
 * of the broker.
 */
import type { QueryRegistration, StateRow } from '../../store/streams.js';
import type { QueueSignal } from '../wake-bus.js';
import { executeCycle, type CycleContext, type CycleOutcome, type CycleRequest } from './cycle.js';
import { readState, registerQuery, type RegisterReply, type RegisterRequest, type StateReadRequest } from './queries.js';

/** What the service is built over. */
export interface StreamsDependencies {
  /** `queen.streams_query_register`. */
  register(request: RegisterRequest): Promise<QueryRegistration>;
  /** `queen.streams_state_get`. */
  read(request: StateReadRequest): Promise<StateRow[]>;
  /** Runs a cycle's work in one database transaction whose pushes go through the sealing step. */
  run: CycleContext['run'];
  /** Runs a cycle without sink pushes as one statement. */
  applyAlone: CycleContext['applyAlone'];
  /** After a commit: wakes the parked pops of a queue in every broker process. */
  wake(signal: QueueSignal): void;
}

/** Registration, cycles and shard reads of the streaming SDK. */
export class StreamsService {
  constructor(private readonly deps: StreamsDependencies) {}

  /** `POST /streams/v1/queries`; throws the 409 on a hash mismatch without reset. */
  register(request: RegisterRequest): Promise<RegisterReply> {
    return registerQuery(request, (r) => this.deps.register(r));
  }

  /** `POST /streams/v1/cycle`; `producerSub` is the caller's JWT subject. */
  cycle(request: CycleRequest, producerSub: string | null): Promise<CycleOutcome> {
    return executeCycle(request, { run: this.deps.run, applyAlone: this.deps.applyAlone, signal: (s) => this.deps.wake(s), producerSub });
  }

  /** `POST /streams/v1/state/get`. */
  state(request: StateReadRequest): Promise<StateRow[]> {
    return readState(request, (r) => this.deps.read(r));
  }
}
