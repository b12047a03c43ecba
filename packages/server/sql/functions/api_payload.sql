-- api_payload: a delivered payload as JSON for the SQL API. A sealed payload (docs/api.md 9.6: the queue had
-- encryption enabled when it was written) cannot be opened in SQL, since the key lives in the broker: it
-- raises 0A000, which rolls back the claim that read it (the messages stay deliverable over HTTP).
--   Parameters: p_payload the stored text; p_queue the queue's name (for the message).
--   Result: the payload as jsonb.
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.api_payload(p_payload text, p_queue text) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF left(p_payload, 7) = 'enc:v1:' THEN
    RAISE EXCEPTION USING ERRCODE = '0A000',
      MESSAGE = format('queue %s holds encrypted messages; the SQL API cannot decrypt them', p_queue),
      HINT = 'Consume encrypted queues over HTTP (the broker holds the key).';
  END IF;
  RETURN p_payload::jsonb;
END
$$;
