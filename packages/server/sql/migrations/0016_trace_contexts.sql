-- 0017_trace_contexts: W3C trace context per message (docs/api.md 4.4, docs/monitoring.md "Tracing"). One element
-- per message of the segment, like producer_subs: the item's traceparent, followed by a space and its
-- tracestate when it had one (a traceparent never contains a space), or null. The column itself is null for a
-- segment none of whose messages carried a context, so pushes without trace context store nothing more.
-- Adding a nullable column without a default rewrites nothing.
ALTER TABLE queen.segments ADD COLUMN trace_contexts text[];
