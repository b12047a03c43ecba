-- message_find on Citus: the override of sql/functions/message_find.sql (its header is the contract) that Citus
-- can plan: PL/pgSQL with custom plans, the key looked up first, then the message read by message_at, each
-- statement routed to the partition's shard (a join of message_keys to a function reading segments would run the
-- function inside a shard's query, where a distributed table cannot be read). Installed on Citus only, after the
-- original and again whenever the original is re-applied (store/citus-schema.ts).
--   Parameters: p_partition_id uuid, p_transaction_id text.
--   Result: the message with its offset, or no row.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.message_find(p_partition_id uuid, p_transaction_id text)
RETURNS TABLE (message_offset bigint, message_id uuid, trace_id uuid, payload text, producer_sub text,
               created_at timestamptz, trace_context text)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
DECLARE
  v_offset bigint;
BEGIN
  SELECT k.message_offset INTO v_offset FROM queen.message_keys k
  WHERE k.partition_id = p_partition_id AND k.transaction_id = p_transaction_id;
  IF v_offset IS NULL THEN
    RETURN;
  END IF;
  RETURN QUERY
  SELECT v_offset, m.message_id, m.trace_id, m.payload, m.producer_sub, m.created_at, m.trace_context
  FROM queen.message_at(p_partition_id, v_offset) m;
END
$$;
