/**
 * Query registration and shard reads (docs/streams.md): the rules around `queen.streams_query_register`
 * and `queen.streams_state_get`.
 *
 * Registration is idempotent by name. The same hash keeps the state whatever `reset` says (upstream's rule,
 * docs/streams.md: a `reset:true` restart must not lose windows); another hash is a conflict unless `reset:true`,
 * which wipes the query's state. The conflict's text is docs/api.md 8's (`config_hash mismatch: stored <old>, got <new>`);
 * clients match its `config_hash mismatch` prefix.
 */
import { DomainError } from '../../errors.js';
import { isUuid } from '../../ids.js';
import type { Store } from '../../store/index.js';
import type { StateRow } from '../../store/streams.js';

/** A registration request, type-checked by the HTTP layer. */
export interface RegisterRequest {
  name: string;
  sourceQueue: string;
  sinkQueue: string | null;
  configHash: string;
  reset: boolean;
}

/** The 200 answer of a registration. */
export interface RegisterReply {
  success: true;
  query_id: string;
  name: string;
  config_hash: string;
  fresh: boolean;
  reset: boolean;
}

/** Registers a query; a hash mismatch without reset throws the conflict of docs/streams.md. */
export async function registerQuery(
  request: RegisterRequest,
  store: Pick<Store, 'streamsQueryRegister'>,
): Promise<RegisterReply> {
  const found = await store.streamsQueryRegister(request);
  if (found.outcome === 'mismatch') {
    throw new DomainError('conflict', `config_hash mismatch: stored ${found.storedHash}, got ${request.configHash}`,
      { success: false, query_id: found.queryId, name: request.name });
  }
  return {
    success: true,
    query_id: found.queryId,
    name: request.name,
    config_hash: request.configHash,
    fresh: found.outcome === 'fresh',
    reset: found.outcome === 'reset',
  };
}

/** A shard read, type-checked by the HTTP layer; null filters are no filters. */
export interface StateReadRequest {
  queryId: string;
  partitionId: string;
  keys: string[] | null;
  keyPrefix: string | null;
  ripeAtOrBefore: number | null;
  /** With ripeAtOrBefore: the stream's group; rows a message it has not consumed yet belongs to are not ripe. */
  group: string | null;
}

/** A state row under the wire names of docs/streams.md (`updated_at` is snake_case there). */
export function stateRowWire(row: StateRow): { key: string; value: unknown; updated_at: string } {
  return { key: row.key, value: row.value, updated_at: row.updatedAt };
}

/** Reads one shard. Ids that are not UUIDs read nothing (never a failure); a key list without strings matches nothing. */
export async function readState(
  request: StateReadRequest,
  store: Pick<Store, 'streamsStateRead'>,
): Promise<StateRow[]> {
  if (!isUuid(request.queryId) || !isUuid(request.partitionId)) return [];
  if (request.keys !== null && request.keys.length === 0) return [];
  return store.streamsStateRead({ ...request, queryId: request.queryId.toLowerCase(), partitionId: request.partitionId.toLowerCase() });
}
