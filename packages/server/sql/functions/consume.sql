-- consume: SQL API v1 (docs/sql-api.md): pops for each request, in the caller's transaction, through
-- pop_messages (api_claim). A claim that the caller's transaction rolls back never happened: its lease and
-- (with autoAck) its commit go with it.
--   Parameters: p_requests a JSON array (an object counts as one) of {queueName, partitionName?,
--     consumerGroup?, batchSize? (1; clamped to 1..10000), leaseSeconds? (the queue's leaseTime), autoAck?
--     (false), subMode? ('all' | 'new' | 'new-only'), subFrom? ('now' | a timestamp), maxPartitions? (1;
--     0 or less: no bound)}; without queueName, namespace and/or task select the discovery scope.
--   Result: a JSON array, one result per request in order: api_claim's body plus "index".
--   Errors: 22023 for a malformed request, 0A000 for an encrypted queue. Nothing waits: consume_one waits.
--   Locks: those of pop_messages (a busy partition is skipped, never waited for).
CREATE OR REPLACE FUNCTION queen.consume(p_requests jsonb) RETURNS jsonb
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  v_requests jsonb := CASE WHEN jsonb_typeof(p_requests) = 'object' THEN jsonb_build_array(p_requests) ELSE p_requests END;
  v_request record;
  v_where text;
  v_queue text;
  v_namespace text;
  v_task text;
  v_results jsonb := '[]';
BEGIN
  IF jsonb_typeof(v_requests) IS DISTINCT FROM 'array' THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'queen.consume: p_requests must be a JSON array of requests';
  END IF;
  -- Every request is checked before the first claim runs.
  FOR v_request IN SELECT t.e, t.i - 1 AS i FROM jsonb_array_elements(v_requests) WITH ORDINALITY AS t (e, i) LOOP
    v_where := format('queen.consume: p_requests[%s]', v_request.i);
    IF jsonb_typeof(v_request.e) <> 'object' THEN
      RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = v_where || ' must be an object';
    END IF;
    v_queue := queen.api_name(queen.api_field(v_request.e, 'queueName', 'string', v_where) #>> '{}', v_where || '.queueName', true);
    PERFORM queen.api_name(queen.api_field(v_request.e, 'partitionName', 'string', v_where) #>> '{}', v_where || '.partitionName', true);
    PERFORM queen.api_name(nullif(queen.api_field(v_request.e, 'consumerGroup', 'string', v_where) #>> '{}', ''),
                           v_where || '.consumerGroup', true);
    v_namespace := queen.api_field(v_request.e, 'namespace', 'string', v_where) #>> '{}';
    v_task := queen.api_field(v_request.e, 'task', 'string', v_where) #>> '{}';
    PERFORM queen.api_field(v_request.e, 'batchSize', 'integer', v_where), queen.api_field(v_request.e, 'leaseSeconds', 'integer', v_where),
            queen.api_field(v_request.e, 'maxPartitions', 'integer', v_where), queen.api_field(v_request.e, 'autoAck', 'boolean', v_where),
            queen.api_field(v_request.e, 'subMode', 'string', v_where), queen.api_field(v_request.e, 'subFrom', 'string', v_where);
    IF v_queue IS NULL AND v_namespace IS NULL AND v_task IS NULL THEN
      RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = v_where || ' needs queueName, or namespace and/or task';
    END IF;
  END LOOP;

  FOR v_request IN SELECT t.e, t.i - 1 AS i FROM jsonb_array_elements(v_requests) WITH ORDINALITY AS t (e, i) LOOP
    v_queue := v_request.e ->> 'queueName';
    v_results := v_results || (queen.api_claim(
      p_scope => CASE WHEN v_queue IS NULL THEN 'discovery'
                      WHEN v_request.e ->> 'partitionName' IS NOT NULL THEN 'partition' ELSE 'queue' END,
      p_queue => v_queue,
      p_partition => v_request.e ->> 'partitionName',
      p_namespace => CASE WHEN v_queue IS NULL THEN v_request.e ->> 'namespace' END,
      p_task => CASE WHEN v_queue IS NULL THEN v_request.e ->> 'task' END,
      p_group => coalesce(nullif(v_request.e ->> 'consumerGroup', ''), '__QUEUE_MODE__'),
      p_batch => least(greatest(coalesce((v_request.e ->> 'batchSize')::integer, 1), 1), 10000),
      p_max_partitions => coalesce((v_request.e ->> 'maxPartitions')::integer, 1),
      p_lease_id => queen.uuid_v7(),
      p_lease_seconds => coalesce((v_request.e ->> 'leaseSeconds')::integer, 0),
      p_auto_ack => coalesce((v_request.e ->> 'autoAck')::boolean, false),
      p_sub_mode => v_request.e ->> 'subMode',
      p_sub_from => v_request.e ->> 'subFrom',
      p_first_attempt => true, p_keep_empty => true) || jsonb_build_object('index', v_request.i));
  END LOOP;
  RETURN v_results;
END
$$;
SELECT queen.api_grant('queen.consume(jsonb)', ARRAY['consumer']);
