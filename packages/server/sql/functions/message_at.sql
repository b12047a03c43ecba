-- message_at: the message at offset p_offset of the partition, or no row.
--   Parameters: p_partition_id uuid, p_offset bigint.
--   Result: (message id, transactionId, traceId, payload, producerSub, created_at, trace context: migration
--     0016) of that offset.
--   Locks: none.
DROP FUNCTION IF EXISTS queen.message_at(uuid, bigint);
CREATE OR REPLACE FUNCTION queen.message_at(p_partition_id uuid, p_offset bigint)
RETURNS TABLE (message_id uuid, transaction_id text, trace_id uuid, payload text, producer_sub text,
               created_at timestamptz, trace_context text)
LANGUAGE sql STABLE AS $$
  SELECT s.message_ids[x.i], s.transaction_ids[x.i], s.trace_ids[x.i], s.payloads[x.i], s.producer_subs[x.i],
         s.created_at, s.trace_contexts[x.i]
  FROM queen.segment_at(p_partition_id, p_offset) s
  CROSS JOIN LATERAL (SELECT (p_offset - s.first_offset + 1)::integer AS i) x
$$;
