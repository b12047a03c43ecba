-- api_intent: a named group's seeding intent for the SQL API's pops (docs/api.md 5.7 rule 3, core/pop.ts
-- subscriptionIntent): subFrom 'now' or a parseable timestamp wins over subMode; 'new' and 'new-only' mean
-- new; anything else, and queue mode, means all (no row). An absent mode means 'all' (the broker's
-- DEFAULT_SUBSCRIPTION_MODE is the broker's setting, not the database's).
--   Parameters: p_group the effective group; p_sub_mode; p_sub_from.
--   Result: at most one row (mode 'new' | 'timestamp', from_at: the timestamp or null).
--   Locks: none.
CREATE OR REPLACE FUNCTION queen.api_intent(p_group text, p_sub_mode text, p_sub_from text)
RETURNS TABLE (mode text, from_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF p_group = '__QUEUE_MODE__' THEN
    RETURN;
  END IF;
  IF lower(p_sub_from) = 'now' THEN
    RETURN QUERY SELECT 'new'::text, NULL::timestamptz;
    RETURN;
  ELSIF p_sub_from IS NOT NULL THEN
    BEGIN
      RETURN QUERY SELECT 'timestamp'::text, p_sub_from::timestamptz;
      RETURN;
    EXCEPTION WHEN data_exception THEN
      NULL;                               -- unparseable: ignored, as on the wire
    END;
  END IF;
  IF p_sub_mode IN ('new', 'new-only') THEN
    RETURN QUERY SELECT 'new'::text, NULL::timestamptz;
  END IF;
END
$$;
