/**
 * The streams service the routes call (docs/streams.md): registration, cycles and shard reads over the state
 * store (store/streams.ts), with the sealing step and the wake-ups of the rest of the broker.
 */
import type { Store } from '../../store/index.js';
import type { StateRow } from '../../store/streams.js';
import type { Sealing } from '../payload-sealing.js';
import type { QueueSignal } from '../wake-bus.js';
import { executeCycle, type CycleOutcome, type CycleRequest } from './cycle.js';
import { readState, registerQuery, type RegisterReply, type RegisterRequest, type StateReadRequest } from './queries.js';

/** What the service is built over. */
export interface StreamsDependencies {
  /** Registration, shard reads, and the cycles' statement and transaction. */
  store: Pick<Store, 'streamsQueryRegister' | 'streamsStateRead' | 'streamsCycleApply' | 'transaction'>;
  /** The sealing step around sink pushes (the one /push and transactions go through, docs/api.md 9.6). */
  sealing: Sealing;
  /** After a commit: wakes the parked pops of a queue in every broker process. */
  wake(signal: QueueSignal): void;
}

/** Registration, cycles and shard reads of the streaming SDK. */
export class StreamsService {
  constructor(private readonly deps: StreamsDependencies) {}

  /** `POST /streams/v1/queries`; throws a conflict on a hash mismatch without reset. */
  register(request: RegisterRequest): Promise<RegisterReply> {
    return registerQuery(request, this.deps.store);
  }

  /** `POST /streams/v1/cycle`; `producerSub` is the caller's JWT subject. */
  cycle(request: CycleRequest, producerSub: string | null): Promise<CycleOutcome> {
    const { store, sealing, wake } = this.deps;
    return executeCycle(request, { store, sealing, signal: wake, producerSub });
  }

  /** `POST /streams/v1/state/get`. */
  state(request: StateReadRequest): Promise<StateRow[]> {
    return readState(request, this.deps.store);
  }
}
