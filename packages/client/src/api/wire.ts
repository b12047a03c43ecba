/**
 * The wire shapes of the Queen HTTP API, generated from packages/server/openapi.json by scripts/wire-types.mjs
 * (openapi-typescript). Do not edit: change the document, then build. Types only: nothing here exists at run time.
 */
export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness and database reachability
         * @description Answers 200 while the database answers `SELECT 1` within 2 s and the broker is not shutting down, else 503 with the same body. `queen.status` is `draining` while the broker shuts down; `buffer` says what the failover buffer is doing.
         */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: can this broker take writes now
         * @description Answers 200 while a push would be committed or buffered (fsync'd) by this broker, 503 while it drains for shutdown or its failover buffer refuses pushes (full, or its disk failed), and 503 `{"ready":false,"reason":"starting"}` before its routes are served. It never queries the database: during a PostgreSQL outage the broker stays ready and buffers pushes. Load balancers and Kubernetes readiness probes follow this route; `/health` says whether everything works.
         */
        get: operations["ready"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This document
         * @description The OpenAPI 3.1 description of the HTTP API, as the broker was built with it.
         */
        get: operations["openApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Process metrics as JSON
         * @description `uptime` in seconds; `rate` per second over the last 60 s; `messages` counts pushed messages; `cpu` in microseconds since start.
         */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics/prometheus": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus exposition
         * @description Families prefixed `queen_` plus the standard process and Node.js runtime families. Served with `Cache-Control: no-cache`.
         */
        get: operations["prometheusMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/configure": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a queue or replace its configuration
         * @description Full replace: every option not sent takes its `/configure` default (`leaseTime` 300). Also creates the `Default` partition. Live leases keep their expiry. `warning` is present when `encryptionEnabled` is requested while the broker has no encryption key (payloads are then stored unencrypted).
         */
        post: operations["configure"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/resources/queues/{queue}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Queue detail
         * @description Configuration, partitions with their counts (`oldestMessage`/`newestMessage` are segment times or null) and totals.
         */
        get: operations["getQueue"];
        put?: never;
        post?: never;
        /**
         * Delete a queue
         * @description Deletes the queue with its partitions, messages, cursors, leases, DLQ entries, traces and subscription records. Deleting a missing queue is not an error (`existed: false`).
         */
        delete: operations["deleteQueue"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/queues/{queue}/clear": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete every message of a queue or partition
         * @description Deletes the retained messages (with their DLQ entries and traces) and releases live leases on the affected partitions. Cursors, subscriptions and configuration stay.
         */
        delete: operations["clearQueue"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/push": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Push messages
         * @description All type checks (the 400s, the W3C trace context of each item among them) run over the whole request before anything is written. Then each item is checked on its own; an item that fails has status `failed` with its `error`, the others are unaffected:
         *
         *     - `Invalid queue name`
         *     - `Invalid partition name`
         *     - `Invalid queue name: "." and ".." are not allowed`
         *     - `Invalid partition name: "." and ".." are not allowed`
         *     - `TransactionId too long (max 255 characters)`
         *     - `Invalid traceId: must be a UUID`
         *     - `Queue '<queue>' would exceed max capacity`
         *     - `File buffer write failed`
         *
         *     Unknown queues and partitions are created. (partition, transactionId) deduplicates among retained messages: a match answers `duplicate` with the stored message's id. The 201 is sent after the commit, or after the local buffer was fsync'd (`buffered`, during maintenance or a database outage).
         *
         *     Trace context: an item's `traceparent` (and `tracestate`) is stored with the message and returned on every delivery. A request of exactly one item without `traceparent` takes the request's `traceparent`/`tracestate` headers instead, when they are valid (an invalid header is ignored, as W3C Trace Context prescribes).
         */
        post: operations["push"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/pop/queue/{queue}/partition/{partition}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Pop from one partition
         * @description Claims a leased batch from the head of the partition for the consumer group. A missing queue is created (with the implicit defaults); a missing partition is a 204 `no_partition`.
         */
        get: operations["popPartition"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/pop/queue/{queue}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Pop from any partition of a queue
         * @description Visits partitions oldest-waiting first. A missing queue is created. The queue option `minPopWaitTime` may hold an under-full batch (only with `wait=true` and `batch` > 1).
         */
        get: operations["popQueue"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/pop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Pop from any queue of a namespace or task
         * @description Needs `namespace`, `task` or both. Queues with higher `priority` come first. Never creates queues. The top-level `queue` is `""`; one `leaseId` covers every claimed partition.
         */
        get: operations["popDiscovery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ack": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Acknowledge one message
         * @description Item failures are in the result (`success:false`, `error`):
         *
         *     - `Invalid status: <status>`
         *     - `Message not found`
         *     - `Invalid or expired lease`
         *     - `Message is outside the leased span`
         *     - `leaseId required: partition is leased`
         *
         *     An ack at or below the cursor is an idempotent success.
         */
        post: operations["ackMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ack/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Acknowledge several messages
         * @description Results in input order. A top-level `consumerGroup` overrides the items' own. Per (partition, group) the items are applied atomically in offset order; after an item that failed with budget or asked for `retry`, later items of that pair report `Not applied: an earlier message of this partition failed in this request`.
         */
        post: operations["ackBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lease/{leaseId}/extend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Extend a lease
         * @description Every live lease record carrying this id gets `expiresAt := max(expiresAt, now + seconds)`. Failures in the result: `Lease not found`, `Lease already expired`. An empty body means `{}`.
         */
        post: operations["extendLease"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/transaction": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pushes and acks in one database transaction
         * @description All or nothing, in array order. Any push item failure, duplicate, or ack `success:false` fails the whole transaction: 200 with `success:false` and `error` (`PUSH operation failed: <reason>`, `ACK operation failed: <reason>`, `Unknown operation type: <type>`), nothing applied.
         */
        post: operations["transaction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/resources/queues": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List queues
         * @description Newest queue first.
         */
        get: operations["listQueues"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/resources/namespaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List namespaces */
        get: operations["listNamespaces"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/resources/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List tasks */
        get: operations["listTasks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/resources/overview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * System overview
         * @description Counts, lag over the (partition, group) pairs of the groups known on each queue, untouched partitions from where the group will start (time in seconds, offset in messages) and throughput over the last minute. `statsAge`: seconds since the stats snapshot was taken.
         */
        get: operations["getOverview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/resources/partitions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List partitions */
        get: operations["listPartitions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List messages
         * @description Newest first, without payloads unless `preview` asks for the start of each. `mode` describes how the `queue` filter's queue is consumed. Follow `nextCursor` for the next page.
         */
        get: operations["listMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/messages/{partitionId}/{transactionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Message detail
         * @description With the decrypted payload, per-group state and delivery counts.
         */
        get: operations["getMessage"];
        put?: never;
        post?: never;
        /**
         * Delete a message
         * @description Removes the message (pops skip its offset), its DLQ entries and traces; frees its transactionId.
         */
        delete: operations["deleteMessage"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/messages/{partitionId}/{transactionId}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Requeue a message from the DLQ
         * @description Pushes a new message with the same data and traceId to the same partition under a new transactionId and removes the DLQ entries. Every group sees the new message. Not in the DLQ: `{"success":false,"error":"Message is not in the DLQ"}`. The body is ignored.
         */
        post: operations["retryMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/messages/{partitionId}/{transactionId}/dlq": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move a group's head message to the DLQ
         * @description Only the head message of the group can be moved: otherwise `Message is not at the head of the consumer group` or `Message already consumed by this consumer group` (`success:false`). Error text default `Moved to DLQ by operator`. An empty body means `{}` (queue mode).
         */
        post: operations["moveMessageToDlq"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/dlq": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List DLQ entries
         * @description Newest failure first; one entry per DLQ event. `data` decrypted; `createdAt` is the message's time, `from`/`to` filter on `failedAt`.
         */
        get: operations["listDlq"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Record a trace event on a message */
        post: operations["recordTrace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces/names": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List trace names */
        get: operations["listTraceNames"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces/by-name/{traceName}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Trace events of a name */
        get: operations["listTracesByName"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces/{partitionId}/{transactionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Trace events of a message
         * @description Oldest first. `worker_id` is the recording broker's server id.
         */
        get: operations["getTraces"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/consumer-groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List consumer groups
         * @description One element per (group, queue), queue mode included. `state`: `Dead` without pop/ack activity for 24 h, else `Lagging` when `maxTimeLag` > 300 s, else `Stable`.
         */
        get: operations["listConsumerGroups"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/consumer-groups/lagging": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Lagging (partition, group) pairs */
        get: operations["listLaggingConsumerGroups"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/consumer-groups/{group}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A group's partitions per queue */
        get: operations["getConsumerGroup"];
        put?: never;
        post?: never;
        /**
         * Delete a group on every queue
         * @description Removes cursors, leases and counters; a group that pops again later starts as a new group.
         */
        delete: operations["deleteConsumerGroup"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/consumer-groups/{group}/queues/{queue}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a group on one queue */
        delete: operations["deleteConsumerGroupForQueue"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/consumer-groups/{group}/subscription": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-time a group's subscriptions
         * @description Every subscription record of the group gets the new timestamp. It changes where never-contacted cursors start; it moves no existing cursor (use seek). An unparseable timestamp: `{"success":false,"error":"Invalid timestamp: <value>"}`.
         */
        post: operations["updateSubscription"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/consumer-groups/{group}/queues/{queue}/seek": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move a group's cursors on every partition of a queue
         * @description `toEnd`: skip everything stored; `timestamp` T: delivery restarts with the first segment after T. Live leases are released, retry counters reset.
         */
        post: operations["seekQueue"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/consumer-groups/{group}/queues/{queue}/partitions/{partition}/seek": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move a group's cursor on one partition
         * @description Same body as the queue seek; an empty body or `{}` means `{"toEnd": true}`. `cursorMovedTo`: id of the last settled message or null.
         */
        post: operations["seekPartition"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/stats/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Recompute the stats snapshot now */
        post: operations["refreshStats"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/system/maintenance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Maintenance state and buffer figures */
        get: operations["getMaintenance"];
        put?: never;
        /**
         * Turn push maintenance on or off
         * @description While on, accepted push items go to the durable local buffer (201 `buffered`) and are replayed in order once it is off.
         */
        post: operations["setMaintenance"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/system/maintenance/pop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Pop maintenance state */
        get: operations["getPopMaintenance"];
        put?: never;
        /**
         * Turn pop maintenance on or off
         * @description While on, every pop (parked ones included) answers 204 `paused`.
         */
        post: operations["setPopMaintenance"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/system/shared-state": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Broker processes of the cluster */
        get: operations["getSharedState"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Dashboard status
         * @description Bucket size: range up to 2 h: 1 min; up to 24 h: 5 min; up to 7 d: 60 min; longer: 1440 min.
         */
        get: operations["getStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/status/queues": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Queues with counts */
        get: operations["listQueueStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/status/queues/{queue}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Queue status */
        get: operations["getQueueStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/status/queues/{queue}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Recent messages of a queue */
        get: operations["listQueueStatusMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/status/analytics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Message counts over time */
        get: operations["getStatusAnalytics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/status/buffers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This process's buffer */
        get: operations["getBufferStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/analytics/system-metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Per-process system samples */
        get: operations["getSystemMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/analytics/worker-metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Per-process operation counters */
        get: operations["getWorkerMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/analytics/queue-lag": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Delivery lag per queue
         * @description Lag = pop time minus the segment's creation time.
         */
        get: operations["getQueueLag"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/analytics/queue-ops": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Operations per queue */
        get: operations["getQueueOps"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/analytics/queue-parked-replicas": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Parked long polls per queue and process */
        get: operations["getParkedReplicas"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/analytics/retention": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retention, eviction and cleanup history */
        get: operations["getRetentionHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/analytics/postgres-stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** PostgreSQL statistics of Queen's schema */
        get: operations["getPostgresStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/streams/v1/queries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register a stream query
         * @description `fresh` is true when this call created the query; `reset:true` wipes its state and stores the new hash.
         */
        post: operations["registerQuery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/streams/v1/cycle": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * State ops, pushes and an ack in one transaction
         * @description Any failure rolls everything back and answers `success:false` with `error`. The ack follows the `/ack` rules for `consumer_group` on `partition_id`; `release_lease:true` releases the lease after the ack.
         */
        post: operations["cycle"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/streams/v1/state/get": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Read a stream query's state rows
         * @description Empty `keys`: every row of the (query, partition).
         */
        post: operations["getState"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description Every error answer: `{"error": "<text>"}`. Texts are exact; a 500 of the broker's own code carries a `requestId` that its log line repeats. */
        Error: {
            error: string;
            requestId?: string;
        };
        /** @description A 400 on the pop routes. */
        PopError: {
            /** @constant */
            success: false;
            error: string;
            messages: unknown[];
        };
        /** @description An administrative write that could not be applied (200, failures live in the body). */
        AdminFailure: {
            /** @constant */
            success: false;
            error: string;
        };
        /** @description The queue options. `leaseTime` s (0 means 60); `retryLimit` failed acks before the DLQ; `retryDelay` ms; `maxSize` queue-mode backlog cap (0 none); `ttl` s (stored, no effect); `priority` (discovery order); `delayedProcessing` s; `windowBuffer` s; `minPopWaitTime` ms 0..60000; `retentionSeconds`, `completedRetentionSeconds` s; `retentionEnabled`; `encryptionEnabled`; `maxWaitTimeSeconds` s (eviction); `deadLetterQueue`, `dlqAfterMaxRetries` (stored, no effect). */
        QueueOptions: {
            leaseTime: number;
            retryLimit: number;
            retryDelay: number;
            maxSize: number;
            ttl: number;
            priority: number;
            delayedProcessing: number;
            windowBuffer: number;
            minPopWaitTime: number;
            retentionSeconds: number;
            completedRetentionSeconds: number;
            retentionEnabled: boolean;
            encryptionEnabled: boolean;
            maxWaitTimeSeconds: number;
            deadLetterQueue: boolean;
            dlqAfterMaxRetries: boolean;
        };
        /** @description Any subset of the queue options; a missing or `null` key takes its `/configure` default (full replace). Unknown keys are ignored. */
        QueueOptionsInput: {
            leaseTime?: number | null;
            retryLimit?: number | null;
            retryDelay?: number | null;
            maxSize?: number | null;
            ttl?: number | null;
            priority?: number | null;
            delayedProcessing?: number | null;
            windowBuffer?: number | null;
            minPopWaitTime?: number | null;
            retentionSeconds?: number | null;
            completedRetentionSeconds?: number | null;
            retentionEnabled?: boolean | null;
            encryptionEnabled?: boolean | null;
            maxWaitTimeSeconds?: number | null;
            deadLetterQueue?: boolean | null;
            dlqAfterMaxRetries?: boolean | null;
        };
        ConfigureRequest: {
            queue: string;
            namespace?: string | null;
            task?: string | null;
            options?: components["schemas"]["QueueOptionsInput"] | null;
        };
        ConfigureResult: {
            /** @constant */
            configured: true;
            /** Format: uuid */
            queueId: string;
            /** Format: uuid */
            partitionId: string;
            queue: string;
            namespace: string;
            task: string;
            options: components["schemas"]["QueueOptions"];
            warning?: string;
        };
        PushItem: {
            /** @description 1-255 characters, not `.` or `..` */
            queue: string;
            /** @default Default */
            partition?: string;
            /** @description Any JSON; stored verbatim and delivered as `data`. Absent: `null`. */
            payload?: unknown;
            /** @description Deduplication key within the partition, at most 255 characters; absent or `""`: the broker mints a UUIDv7. */
            transactionId?: string;
            /** @description A UUID (any version). */
            traceId?: string;
            /**
             * @description W3C Trace Context `traceparent` of the producer's span (https://www.w3.org/TR/trace-context/): `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`, lowercase; a later version may append `-` fields; version `ff` and all-zero ids are invalid. Stored with the message and returned on every delivery. Absent on a single-item push: the request's `traceparent` header, when valid, is used instead.
             * @example 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
             */
            traceparent?: string;
            /**
             * @description W3C Trace Context `tracestate` that goes with `traceparent` (which it needs): at most 32 `key=value` members, at most 512 characters. An empty one counts as absent.
             * @example congo=t61rcWkgMzE
             */
            tracestate?: string;
        };
        PushRequest: {
            items: components["schemas"]["PushItem"][];
        };
        /** @description One result per input item, in input order; `index` is the item's 0-based position in the request. Its fields depend on `status`. */
        PushResult: components["schemas"]["PushQueued"] | components["schemas"]["PushDuplicate"] | components["schemas"]["PushFailed"] | components["schemas"]["PushBuffered"];
        /** @description A popped message: exactly these ten keys. */
        Message: {
            /** Format: uuid */
            id: string;
            transactionId: string;
            traceId: string | null;
            /** @description the pushed payload (decrypted) */
            data: unknown;
            producerSub: string | null;
            /** @description the segment's creation time, microseconds, literal `Z` */
            createdAt: string;
            /** Format: uuid */
            partitionId: string;
            partition: string;
            /** @description `""` with autoAck */
            leaseId: string;
            consumerGroup: string;
            /** @description The message's W3C `traceparent` (as pushed); absent when it was pushed without trace context. */
            traceparent?: string;
            /** @description The message's W3C `tracestate`; absent when it has none. */
            tracestate?: string;
        };
        PopResponse: {
            /** @constant */
            success: true;
            /** @description `""` on the discovery route */
            queue: string;
            partition: string;
            /** Format: uuid */
            partitionId: string;
            leaseId: string;
            consumerGroup: string;
            messages: components["schemas"]["Message"][];
            partitionsClaimed: number;
        };
        AckItem: {
            transactionId: string;
            partitionId: string;
            /**
             * @default completed
             * @enum {unknown}
             */
            status?: "completed" | "success" | "failed" | "dlq" | "retry";
            consumerGroup?: string | null;
            leaseId?: string | null;
            error?: string | null;
        };
        AckBatchRequest: {
            acknowledgments: components["schemas"]["AckItem"][];
            consumerGroup?: string | null;
        };
        AckResult: {
            index: number;
            transactionId: string;
            success: boolean;
            error: string | null;
            queueName: string | null;
            partitionName: string | null;
            leaseReleased: boolean;
            dlq: boolean;
        };
        LeaseExtendResult: {
            index: number;
            leaseId: string;
            success: boolean;
            error: string | null;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            expiresAt: string | null;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            newExpiresAt: string | null;
        };
        TransactionOperation: {
            /** @description `push` or `ack`; another value fails the transaction */
            type: string;
            items?: components["schemas"]["PushItem"][];
            transactionId?: string;
            partitionId?: string;
            status?: string;
            consumerGroup?: string | null;
            leaseId?: string | null;
            error?: string | null;
        };
        TransactionRequest: {
            operations: components["schemas"]["TransactionOperation"][];
            requiredLeases?: string[] | null;
        };
        TransactionResult: {
            transactionId: string;
            success: boolean;
            error?: string;
            /** @description One result per push item and per ack, numbered over the flattened list; they end with the failing operation. */
            results: ({
                index: number;
                /** @constant */
                type: "push";
                /** @constant */
                success: true;
                transactionId: string;
                /** Format: uuid */
                messageId: string;
                /** Format: uuid */
                partitionId: string;
                queueName: string;
            } | {
                index: number;
                /** @constant */
                type: "push";
                /** @constant */
                success: false;
                transactionId: string | null;
                queueName: string;
                error: string;
            } | {
                index: number;
                /** @constant */
                type: "ack";
                success: boolean;
                transactionId: string;
                error: string | null;
                dlq: boolean;
                leaseReleased: boolean;
            } | {
                index: number;
                /** @description the `type` value as sent */
                type: unknown;
                /** @constant */
                success: false;
                error: string;
            })[];
        };
        Health: {
            /** @enum {unknown} */
            status: "healthy" | "unhealthy";
            /** @enum {unknown} */
            database: "connected" | "disconnected";
            database_server?: string | null;
            server: string;
            worker_id: number;
            version: string;
            shared_state: {
                enabled: boolean;
                running: boolean;
                server_id: string;
                transport: string;
                queue_config_cache: {
                    size: number;
                    hits: number;
                    misses: number;
                    hit_rate: number;
                };
                server_health: {
                    servers_tracked: number;
                    servers_alive: number;
                    servers_dead: number;
                    heartbeats_received: number;
                    restarts_detected: number;
                };
                maintenance_mode: boolean;
                pop_maintenance_mode: boolean;
            };
            queen: {
                worker_id: number;
                /** @enum {unknown} */
                status: "active" | "draining";
            };
            buffer?: {
                state: string;
                buffered_messages: number;
                detail: string;
            };
        };
        Readiness: {
            ready: boolean;
            /** @enum {unknown} */
            reason: null | "draining" | "buffer full" | "buffer write failed" | "starting";
            /** @enum {unknown} */
            writes?: "database" | "buffer";
            buffer?: {
                state: string;
                buffered_messages: number;
                detail: string;
                bytes?: number;
                max_bytes?: number;
            };
        };
        QueueDetail: {
            /** Format: uuid */
            id: string;
            name: string;
            namespace: string;
            task: string;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            createdAt: string;
            config: components["schemas"]["QueueOptions"];
            partitions: {
                /** Format: uuid */
                id: string;
                name: string;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                createdAt: string;
                stats: {
                    total: number;
                    pending: number;
                    processing: number;
                    completed: number;
                    failed: number;
                    deadLetter: number;
                };
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                oldestMessage: string | null;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                newestMessage: string | null;
            }[];
            totals: {
                total: number;
                pending: number;
                processing: number;
                completed: number;
                failed: number;
                deadLetter: number;
            };
        };
        /** @description An administrative look-up that missed: 200 with header `X-Queen-Status: 404`. */
        NotFound: {
            error: string;
            /** @constant */
            success?: false;
        };
        QueueList: {
            queues: {
                /** Format: uuid */
                id: string;
                name: string;
                namespace: string;
                task: string;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                createdAt: string;
                partitions: number;
                messages: {
                    total: number;
                    pending: number;
                    processing: number;
                };
            }[];
        };
        NamespaceList: {
            namespaces: {
                namespace: string;
                queues: number;
                partitions: number;
                messages: {
                    total: number;
                    pending: number;
                };
            }[];
        };
        TaskList: {
            tasks: {
                task: string;
                queues: number;
                partitions: number;
                messages: {
                    total: number;
                    pending: number;
                };
            }[];
        };
        Overview: {
            queues: number;
            partitions: number;
            namespaces: number;
            tasks: number;
            messages: {
                total: number;
                pending: number;
                processing: number;
                completed: number;
                failed: number;
                deadLetter: number;
            };
            lag: {
                time: {
                    avg: number;
                    median: number;
                    min: number;
                    max: number;
                };
                offset: {
                    avg: number;
                    median: number;
                    min: number;
                    max: number;
                };
            };
            throughput: {
                ingestedPerSecond: number;
                processedPerSecond: number;
            };
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            timestamp: string;
            statsAge: number | null;
        };
        PartitionList: {
            partitions: {
                /** Format: uuid */
                id: string;
                name: string;
                queue: string;
                namespace: string;
                task: string;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                createdAt: string;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                lastActivity: string | null;
                messages: {
                    total: number;
                    pending: number;
                    processing: number;
                };
                consumerGroups: number;
            }[];
            total: number;
            pagination: {
                limit: number;
                offset: number;
            };
        };
        ClearResult: {
            /** @constant */
            success: true;
            queue: string;
            partition: string | null;
            deletedMessages: number;
        };
        ConsumptionMode: {
            hasQueueMode: boolean;
            busGroupsCount: number;
            /** @enum {unknown} */
            type: "queue" | "bus" | "hybrid" | "none";
        };
        MessageSummary: {
            /** Format: uuid */
            id: string;
            transactionId: string;
            /** Format: uuid */
            partitionId: string;
            queuePath: string;
            queue: string;
            partition: string;
            namespace: string;
            task: string;
            status: components["schemas"]["MessageStatus"];
            queueStatus: components["schemas"]["MessageStatus"] | null;
            busStatus: {
                consumedBy: number;
                totalGroups: number;
            };
            traceId: string | null;
            producerSub: string | null;
            /** @description The message's W3C `traceparent`, or null when it was pushed without trace context. */
            traceparent: string | null;
            /** @description The message's W3C `tracestate`, or null. */
            tracestate: string | null;
            queuePriority: number;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            leaseExpiresAt: string | null;
            payloadPreview?: string | null;
            payloadTruncated?: boolean;
            payloadBytes?: number | null;
        };
        /** @enum {unknown} */
        MessageStatus: "pending" | "processing" | "completed" | "dead_letter";
        MessageList: {
            messages: components["schemas"]["MessageSummary"][];
            mode: components["schemas"]["ConsumptionMode"];
            nextCursor?: string | null;
        };
        MessageDetail: {
            /** Format: uuid */
            id: string;
            transactionId: string;
            /** Format: uuid */
            partitionId: string;
            queuePath: string;
            queue: string;
            partition: string;
            namespace: string;
            task: string;
            status: components["schemas"]["MessageStatus"];
            payload: unknown;
            isEncrypted: boolean;
            traceId: string | null;
            producerSub: string | null;
            /** @description The message's W3C `traceparent`, or null when it was pushed without trace context. */
            traceparent: string | null;
            /** @description The message's W3C `tracestate`, or null. */
            tracestate: string | null;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            createdAt: string;
            errorMessage: string | null;
            retryCount: number;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            leaseExpiresAt: string | null;
            queueConfig: {
                leaseTime: number;
                retryLimit: number;
                retryDelay: number;
                ttl: number;
                priority: number;
            };
            mode: {
                hasQueueMode: boolean;
                busGroupsCount: number;
                consumedByGroups: number;
                type: string;
            };
            consumerGroups: {
                name: string;
                consumed: boolean;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                leaseExpiresAt: string | null;
                retryCount: number;
                deliveryAttempts: number | null;
            }[];
        };
        MessageDeleteResult: {
            success: boolean;
            partitionId: string;
            transactionId: string;
            /** @enum {unknown} */
            message: "Message deleted successfully" | "Message not found";
        };
        RequeueResult: {
            /** @constant */
            success: true;
            /** Format: uuid */
            partitionId: string;
            transactionId: string;
            newTransactionId: string;
            /** Format: uuid */
            messageId: string;
            dlqEntriesRemoved: number;
        };
        MoveToDlqResult: {
            /** @constant */
            success: true;
            /** Format: uuid */
            partitionId: string;
            transactionId: string;
            consumerGroup: string;
            /** @constant */
            dlq: true;
        };
        DlqList: {
            messages: {
                /** Format: uuid */
                id: string;
                transactionId: string;
                /** Format: uuid */
                partitionId: string;
                queue: string;
                partition: string;
                consumerGroup: string;
                errorMessage: string | null;
                retryCount: number;
                data: unknown;
                producerSub: string | null;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                createdAt: string;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                failedAt: string;
            }[];
            total: number;
            pagination: {
                limit: number;
                offset: number;
            };
        };
        TraceRequest: {
            transactionId: string;
            partitionId: string;
            data: unknown;
            consumerGroup?: string | null;
            eventType?: string | null;
            traceNames?: string | string[] | null;
        };
        TraceRecorded: {
            /** @constant */
            success: true;
            /** Format: uuid */
            traceId: string;
        };
        MessageTraces: {
            traces: {
                /** Format: uuid */
                id: string;
                event_type: string;
                data: unknown;
                consumer_group: string;
                worker_id: string | null;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                created_at: string;
                trace_names: string[];
            }[];
        };
        TracesByName: {
            traces: {
                /** Format: uuid */
                id: string;
                transaction_id: string;
                /** Format: uuid */
                partition_id: string;
                event_type: string;
                data: unknown;
                consumer_group: string;
                worker_id: string | null;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                created_at: string;
                queue_name: string;
                partition_name: string;
                message_payload: unknown;
                trace_names: string[];
            }[];
            total: number;
            pagination: {
                limit: number;
                offset: number;
            };
        };
        TraceNames: {
            trace_names: {
                trace_name: string;
                trace_count: number;
                message_count: number;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                last_seen: string;
            }[];
            total: number;
            pagination: {
                limit: number;
                offset: number;
            };
        };
        ConsumerGroupSummary: {
            name: string;
            topics: string[];
            queueName: string;
            members: number;
            partitionsWithLag: number;
            totalLag: number;
            maxTimeLag: number;
            /** @enum {unknown} */
            state: "Stable" | "Lagging" | "Dead";
            subscriptionMode: string;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            subscriptionTimestamp: string | null;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            subscriptionCreatedAt: string | null;
        };
        LaggingPartition: {
            consumer_group: string;
            queue_name: string;
            partition_name: string;
            /** Format: uuid */
            partition_id: string;
            worker_id: string | null;
            offset_lag: number;
            time_lag_seconds: number;
            lag_hours: number;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            oldest_unconsumed_at: string | null;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            last_consumed_at: string | null;
        };
        /** @description Keyed by queue name; `{}` for an unknown group. */
        ConsumerGroupDetail: {
            [key: string]: {
                partitions: {
                    partition: string;
                    workerId: string | null;
                    /**
                     * Format: date-time
                     * @description UTC ISO-8601, milliseconds, literal `Z`
                     */
                    lastConsumedAt: string | null;
                    totalConsumed: number;
                    offsetLag: number;
                    timeLagSeconds: number;
                    leaseActive: boolean;
                }[];
            };
        };
        GroupDeleteResult: {
            /** @constant */
            success: true;
            consumerGroup: string;
            queueName?: string;
            deletedPartitions: number;
            metadataDeleted: boolean;
        };
        SubscriptionRequest: {
            /** @description ISO-8601 or `now` */
            subscriptionTimestamp: string;
        };
        SubscriptionResult: {
            /** @constant */
            success: true;
            consumerGroup: string;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            newTimestamp: string;
            rowsUpdated: number;
        };
        SeekRequest: {
            toEnd?: boolean;
            /** @description ISO-8601 */
            timestamp?: string;
        };
        SeekResult: {
            /** @constant */
            success: true;
            consumerGroup: string;
            queueName: string;
            seekToEnd: boolean;
            targetTimestamp: string | null;
            partitionsUpdated: number;
        };
        PartitionSeekResult: {
            /** @constant */
            success: true;
            consumerGroup: string;
            queueName: string;
            partitionName: string;
            updated: boolean;
            cursorMovedTo: string | null;
        };
        /** @description Per step `{ok, durationMs}`, or `{skipped:true, reason:"another_instance_running"}` when another broker process holds the stats lock. */
        StatsRefresh: {
            partition: {
                ok: boolean;
                durationMs: number;
            };
            queue: {
                ok: boolean;
                durationMs: number;
            };
            namespace: {
                ok: boolean;
                durationMs: number;
            };
            task: {
                ok: boolean;
                durationMs: number;
            };
            system: {
                ok: boolean;
                durationMs: number;
            };
            cleanup: {
                ok: boolean;
                durationMs: number;
            };
        } | {
            /** @constant */
            skipped: true;
            /** @constant */
            reason: "another_instance_running";
        };
        MaintenanceRequest: {
            enabled: boolean;
        };
        MaintenanceState: {
            maintenanceMode: boolean;
            popMaintenanceMode: boolean;
            bufferedMessages: number;
            bufferHealthy: boolean;
            bufferStats: {
                pendingCount: number;
                failedCount: number;
                dbHealthy: boolean;
                failedFiles: {
                    count: number;
                    totalBytes: number;
                    totalMB: number;
                    failoverCount: number;
                    qos0Count: number;
                };
            };
        };
        MaintenanceSet: {
            maintenanceMode: boolean;
            bufferedMessages: number;
            bufferHealthy: boolean;
            message: string;
        };
        PopMaintenance: {
            popMaintenanceMode: boolean;
            message?: string;
        };
        SharedState: {
            serverId: string;
            processes: {
                serverId: string;
                hostname: string;
                pid: number;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                startedAt: string;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                lastHeartbeatAt: string;
                parkedPops: number;
            }[];
            maintenanceMode: boolean;
            popMaintenanceMode: boolean;
        };
        Status: {
            timeRange: {
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                from: string;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                to: string;
            };
            bucketMinutes: number;
            pointCount: number;
            throughput: {
                /** Format: date-time */
                timestamp: string;
                ingested: number;
                processed: number;
                ingestedPerSecond: number;
                processedPerSecond: number;
                avgLagMs: number;
                maxLagMs: number;
            }[];
            queues: {
                id: string;
                name: string;
                namespace: string | null;
                task: string | null;
                partitions: number;
                totalConsumed: number;
            }[];
            messages: {
                total: number;
                pending: number;
                processing: number;
                completed: number;
                failed: number;
                deadLetter: number;
                requests: {
                    push: number;
                    pop: number;
                    ack: number;
                };
                batchEfficiency: {
                    push: number;
                    pop: number;
                    ack: number;
                };
            };
            leases: {
                active: number;
                partitionsWithLeases: number;
                totalBatchSize: number;
                totalAcked: number | null;
            };
            deadLetterQueue: {
                totalMessages: number;
                affectedPartitions: number;
                topErrors: {
                    error: string | null;
                    count: number;
                }[];
            };
            workers: {
                workerId: string;
                hostname: string;
                pid: number;
                /** Format: date-time */
                lastSeen: string;
            }[];
            errors: {
                dbErrors: number;
                ackFailed: number;
                dlqMessages: number;
            };
            /** @description The installation's pending messages (the message counts of the resources routes, summed over every queue), sampled once a minute by one broker: per bucket of the range that holds a sample, its latest. Empty when `queue`, `namespace` or `task` is given. Its change over the range is the dashboard's Net flow. */
            pendingHistory: {
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                timestamp: string;
                pending: number;
            }[];
            statsAge: number | null;
        };
        StatusQueues: {
            queues: {
                /** Format: uuid */
                id: string;
                name: string;
                namespace: string;
                task: string;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                createdAt: string;
                partitions: number;
                messages: {
                    total: number;
                    pending: number;
                    processing: number;
                };
            }[];
            pagination: {
                limit: number;
                offset: number;
            };
        };
        StatusQueue: {
            queue: {
                id: string;
                name: string;
                namespace: string | null;
                task: string | null;
                priority: number;
                /** Format: date-time */
                createdAt: string;
                config: {
                    leaseTime: number;
                    retryLimit: number;
                    retryDelay: number;
                    ttl: number;
                    maxQueueSize: number;
                    deadLetterQueue: boolean;
                    dlqAfterMaxRetries: boolean;
                    delayedProcessing: number;
                    windowBuffer: number;
                    minPopWaitTime: number;
                    retentionSeconds: number;
                    completedRetentionSeconds: number;
                    retentionEnabled: boolean;
                    encryptionEnabled: boolean;
                    maxWaitTimeSeconds: number;
                };
            };
            partitions: {
                id: string;
                name: string;
                /** Format: date-time */
                createdAt: string;
                messages: {
                    total: number;
                    pending: number;
                    processing: number;
                    completed: number;
                    failed: number;
                    deadLetter: number;
                };
                stats: {
                    pushedLastHour: number;
                    consumedLastHour: number;
                    avgLagSeconds: number;
                };
                cursor: {
                    totalConsumed: number;
                    batchesConsumed: number;
                };
                /** Format: date-time */
                lastActivity: string | null;
                /** Format: date-time */
                oldestMessage: string | null;
                /** Format: date-time */
                newestMessage: string | null;
            }[];
            totals: {
                messages: {
                    total: number;
                    pending: number;
                    processing: number;
                    completed: number;
                    failed: number;
                    deadLetter: number;
                };
                partitions: number;
                consumerGroups: number;
            };
            /** @description One entry per consumer group known on the queue (a cursor on any of its partitions or a subscription record; queue mode as `__QUEUE_MODE__`), ordered by name. Each group is counted against its own cursors over every partition of the queue, a partition it has not touched yet from where it will start: `completed` retained messages it has consumed, `processing` inside its live leases, `pending` not yet delivered to it; `partitions` the partitions it has touched; `timeLagSeconds` the age of the oldest retained message it has not consumed (0 when caught up). */
            consumerGroups: {
                name: string;
                completed: number;
                processing: number;
                pending: number;
                partitions: number;
                timeLagSeconds: number;
            }[];
        };
        StatusQueueMessages: {
            /** Format: uuid */
            id: string;
            transactionId: string;
            /** Format: uuid */
            partitionId: string;
            queuePath: string;
            queue: string;
            partition: string;
            status: string;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            createdAt: string;
        }[];
        StatusAnalytics: {
            dataPoints: {
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                timestamp: string;
                messages: {
                    ingested: number;
                    processed: number;
                    failed: number;
                    deadLetter: number;
                };
            }[];
            interval: string;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            from: string;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            to: string;
        };
        BufferStatus: {
            pending: number;
            failed: number;
            dbHealthy: boolean;
            worker: string;
        };
        SystemMetrics: {
            timeRange: {
                /** Format: date-time */
                from: string;
                /** Format: date-time */
                to: string;
            };
            replicas: {
                hostname: string;
                port: number;
                workerId: string;
                alive: boolean;
                timeSeries: {
                    /** Format: date-time */
                    timestamp: string;
                    sampleCount: number;
                    metrics: {
                        cpu: {
                            userPercent: number;
                            systemPercent: number;
                        };
                        memory: {
                            rss: number;
                            heapUsed: number;
                        };
                        database: {
                            poolSize: number;
                            idle: number;
                            active: number;
                            waiting: number;
                        };
                        eventLoop: {
                            lagMs: number;
                        };
                        registries: {
                            parkedPops: number;
                            inflightRequests: number;
                        };
                    };
                }[];
            }[];
            replicaCount: number;
            bucketMinutes: number;
            /** @description Replicas running now (`alive`): a restarted broker's old samples stay in the window as a stopped replica. */
            aliveCount: number;
        };
        WorkerMetrics: {
            timeRange: {
                /** Format: date-time */
                from: string;
                /** Format: date-time */
                to: string;
            };
            bucketMinutes: number;
            pointCount: number;
            timeSeries: {
                /** Format: date-time */
                timestamp: string;
                pushRequests: number;
                pushMessages: number;
                popRequests: number;
                popMessages: number;
                ackRequests: number;
                ackMessages: number;
                transactions: number;
                errors: number;
            }[];
            workers: {
                workerId: string;
                hostname: string;
                pid: number;
                /** Format: date-time */
                lastSeen: string;
            }[];
            queues: {
                queue: string;
                pushMessages: number;
                popMessages: number;
                ackMessages: number;
            }[];
            summary: {
                pushMessages: number;
                popMessages: number;
                ackMessages: number;
                errors: number;
            };
        };
        QueueLag: {
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            timestamp: string;
            queue: string;
            popMessages: number;
            avgLagMs: number;
            maxLagMs: number;
        }[];
        QueueOps: {
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            timestamp: string;
            queue: string;
            pushRequests: number;
            pushMessages: number;
            popRequests: number;
            popMessages: number;
            ackRequests: number;
            ackMessages: number;
            ackFailed: number;
            transactions: number;
            dlqMoved: number;
        }[];
        ParkedReplicas: {
            queue: string;
            serverId: string;
            parked: number;
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            updatedAt: string;
        }[];
        RetentionHistory: {
            history: {
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                timestamp: string;
                queue: string;
                partition: string | null;
                /** @enum {unknown} */
                kind: "retention" | "completed" | "eviction" | "partition_cleanup";
                deleted: number;
            }[];
            total: number;
            pagination: {
                limit: number;
                offset: number;
            };
        };
        PostgresStats: {
            /**
             * Format: date-time
             * @description UTC ISO-8601, milliseconds, literal `Z`
             */
            timestamp: string;
            database: {
                name: string;
                size: string;
                connections: number;
                maxConnections: number;
                serverVersion: string;
                deadlocks: number;
            };
            databaseCache: {
                hitRatio: number | null;
                blocksHit: number;
                blocksRead: number;
            };
            tableCache: {
                table: string;
                blocksHit: number;
                blocksRead: number;
                hitRatio: number | null;
            }[];
            indexCache: {
                index: string;
                table: string;
                blocksHit: number;
                blocksRead: number;
                hitRatio: number | null;
            }[];
            cacheSummary: {
                tableHitRatio: number | null;
                indexHitRatio: number | null;
            };
            deadTuples: {
                table: string;
                deadTuples: number;
                liveTuples: number;
                deadRatio: number | null;
            }[];
            hotUpdates: {
                table: string;
                updates: number;
                hotUpdates: number;
                hotRatio: number | null;
            }[];
            activeQueries: {
                pid: number;
                state: string | null;
                durationMs: number | null;
                query: string;
                waitEvent: string | null;
            }[];
            autovacuumStatus: {
                table: string;
                /** Format: date-time */
                lastAutovacuum: string | null;
                /** Format: date-time */
                lastAutoanalyze: string | null;
            }[];
            bufferConfig: {
                sharedBuffers: string;
            };
            bufferUsage: {
                relation: string;
                percentOfSharedBuffers: number | null;
            }[];
            tableSizes: {
                table: string;
                totalSize: string;
                tableBytes: number;
                indexBytes: number;
            }[];
        };
        Metrics: {
            uptime: number;
            requests: {
                total: number;
                rate: number;
            };
            messages: {
                total: number;
                rate: number;
            };
            database: {
                poolSize: number;
                idleConnections: number;
                waitingRequests: number;
            };
            memory: {
                rss: number;
                heapTotal: number;
                heapUsed: number;
                external: number;
                arrayBuffers: number;
            };
            cpu: {
                user: number;
                system: number;
            };
        };
        StreamQueryRequest: {
            name: string;
            source_queue: string;
            config_hash: string;
            reset?: boolean;
            sink_queue?: string | null;
        };
        StreamQueryResult: {
            /** @constant */
            success: true;
            query_id: string;
            name: string;
            config_hash: string;
            fresh: boolean;
            reset: boolean;
        };
        StreamQueryConflict: {
            /** @constant */
            success: false;
            query_id: string;
            name: string;
            error: string;
        };
        StreamCycleRequest: {
            query_id: string;
            partition_id: string;
            consumer_group?: string | null;
            state_ops?: {
                /** @enum {unknown} */
                type: "upsert" | "delete";
                key: string;
                value?: unknown;
            }[];
            push_items?: components["schemas"]["PushItem"][];
            ack?: {
                transactionId: string;
                leaseId?: string | null;
                status?: string;
                count?: number;
                error?: string | null;
            } | null;
            release_lease?: boolean;
        };
        StreamCycleResult: {
            success: boolean;
            query_id?: string;
            partition_id?: string;
            /** @description The source queue of the partition (null when the partition is unknown). */
            queueName?: string | null;
            state_ops_applied?: number;
            push_results?: components["schemas"]["PushResult"][];
            ack_result?: {
                success: boolean;
                count: number;
                lease_released: boolean;
                dlq: boolean;
            } | null;
            error?: string;
        };
        StreamStateRequest: {
            query_id: string;
            partition_id: string;
            keys?: string[];
            /** @description Keeps keys starting with it, literally (no `%`/`_` wildcards); empty: no filter. */
            key_prefix?: string;
            /** @description Epoch ms (ignored when not a number): keeps rows whose `value.windowEnd` is a JSON number at or below it. */
            ripe_at_or_before?: number;
            /** @description With `ripe_at_or_before`: the bound is lowered to the `createdAt` of this group's oldest message of the partition not consumed yet. */
            consumer_group?: string;
        };
        StreamStateResult: {
            success: boolean;
            rows: {
                key: string;
                value: unknown;
                /**
                 * Format: date-time
                 * @description UTC ISO-8601, milliseconds, literal `Z`
                 */
                updated_at: string;
            }[];
            error?: string;
        };
        /** @description A stored message. */
        PushQueued: {
            index: number;
            /** @constant */
            status: "queued";
            transaction_id: string;
            /** Format: uuid */
            message_id: string;
            /** Format: uuid */
            partition_id: string;
            trace_id: string | null;
            queueName: string;
        };
        /** @description A transactionId already stored in the partition: nothing written; `message_id` is the stored message's. */
        PushDuplicate: {
            index: number;
            /** @constant */
            status: "duplicate";
            transaction_id: string;
            /** Format: uuid */
            message_id: string;
            queueName: string;
        };
        /** @description An item refused by a per-item rule; `transaction_id` as sent, or null. */
        PushFailed: {
            index: number;
            /** @constant */
            status: "failed";
            transaction_id: string | null;
            queueName: string;
            queue: string;
            partition: string;
            error: string;
        };
        /** @description Written to the broker's failover buffer; `transactionId` has the value of `transaction_id`. */
        PushBuffered: {
            index: number;
            /** @constant */
            status: "buffered";
            transaction_id: string;
            queueName: string;
            queue: string;
            partition: string;
            transactionId: string;
        };
    };
    responses: {
        /**
         * @description Authentication is on and the token is missing or invalid.
         *
         *     Error texts:
         *     - `Authentication required`
         *     - `Token decode error: <detail>`
         *     - `Token uses <alg>, expected <alg>`
         *     - `Invalid token signature`
         *     - `Token has expired`
         *     - `Token not yet valid`
         *     - `Invalid token issuer`
         *     - `Invalid token audience`
         *     - `<ALG> validation error: <detail>`
         */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The token's role is below the route's access level, or the request's `Origin` is not allowed by `CORS_ORIGINS`.
         *
         *     Error texts:
         *     - `Insufficient permissions`
         *     - `Origin not allowed (set CORS_ORIGINS)`
         */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The request's `Origin` is not allowed by `CORS_ORIGINS`.
         *
         *     Error texts:
         *     - `Origin not allowed (set CORS_ORIGINS)`
         */
        OriginNotAllowed: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The body is larger than `MAX_PAYLOAD_BYTES`; nothing of the request is applied and the connection is closed.
         *
         *     Error texts:
         *     - `Payload too large`
         */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description No database connection became free in time (`pool`, safe to retry), a statement timed out, or an unexpected error (generic text with a `requestId`).
         *
         *     Error texts:
         *     - `pool`
         *     - `statement timeout`
         *     - `HS256 secret not configured`
         *     - `Internal server error`
         */
        ServerError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description No database connection became free in time (`pool`), the pop statement timed out (`pop failed`), or an unexpected error.
         *
         *     Error texts:
         *     - `pool`
         *     - `pop failed`
         *     - `Internal server error`
         */
        PopServerError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description The database is unreachable (pushes are still buffered), or too many request bytes are in flight. Retry after `Retry-After` seconds.
         *
         *     Error texts:
         *     - `Service Unavailable: the database is unreachable`
         *     - `Server busy: too many request bytes in flight, retry later`
         */
        Unavailable: {
            headers: {
                /** @description Seconds to wait before retrying. */
                "Retry-After": string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /** @description Queue name (percent-encoded; `%2F` is part of the name). */
        queuePath: string;
        /** @description Partition name. */
        partitionPath: string;
        /** @description Consumer group name. */
        groupPath: string;
        /** @description Partition id (a UUID; anything else simply misses). */
        partitionIdPath: string;
        /** @description The message's transactionId. */
        transactionIdPath: string;
        /** @description Page size. Not an integer or below 1: the default; above 1000: clamped; above 2147483647: 400 `Invalid limit: must be an integer of at most 2147483647`. */
        limit: number;
        /** @description Rows to skip. Negative or not an integer: 0; above 2147483647: 400. */
        offset: number;
        /** @description Start of the time range (ISO-8601; without a zone: UTC). Default: one hour ago. */
        from: string;
        /** @description End of the time range (ISO-8601). Default: now. */
        to: string;
        /** @description Only this queue. */
        queueFilter: string;
        /** @description Only queues of this namespace. */
        namespaceFilter: string;
        /** @description Only queues of this task. */
        taskFilter: string;
    };
    requestBodies: never;
    headers: {
        /** @description Seconds to wait before retrying. */
        RetryAfter: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Healthy. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            403: components["responses"]["OriginNotAllowed"];
            500: components["responses"]["ServerError"];
            /** @description Unhealthy: the database is unreachable (with `Retry-After`) or the broker is draining. Same body shape as the 200. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    ready: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready: pushes are committed (`writes` `database`) or buffered (`writes` `buffer`). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            403: components["responses"]["OriginNotAllowed"];
            500: components["responses"]["ServerError"];
            /** @description Not ready: `reason` is `draining`, `buffer full`, `buffer write failed` or `starting`; with `Retry-After`. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
        };
    };
    openApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, unknown>;
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            403: components["responses"]["OriginNotAllowed"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The figures. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Metrics"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            403: components["responses"]["OriginNotAllowed"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    prometheusMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text format 0.0.4. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            403: components["responses"]["OriginNotAllowed"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    configure: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConfigureRequest"];
            };
        };
        responses: {
            /** @description Configured. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConfigureResult"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Empty request body`
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `queue is required`
             *     - `Invalid queue name`
             *     - `Invalid queue name: "." and ".." are not allowed`
             *     - `Invalid namespace`
             *     - `Invalid namespace: "." and ".." are not allowed`
             *     - `Invalid task`
             *     - `Invalid task: "." and ".." are not allowed`
             *     - `Invalid option <name>: <reason>`
             *     - `Invalid option options: must be an object`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getQueue: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Queue name (percent-encoded; `%2F` is part of the name). */
                queue: components["parameters"]["queuePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description The queue.
             *
             *     A look-up that misses is also a 200, with header `X-Queen-Status: 404` and body `{"error":"Queue not found"}`.
             */
            200: {
                headers: {
                    /** @description `404` when the look-up missed (the status stays 200 so that the official client does not throw). */
                    "X-Queen-Status"?: "404";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QueueDetail"] | components["schemas"]["NotFound"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteQueue: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Queue name (percent-encoded; `%2F` is part of the name). */
                queue: components["parameters"]["queuePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (or there was nothing). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        queue: string;
                        existed: boolean;
                    };
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    clearQueue: {
        parameters: {
            query?: {
                /** @description Only this partition. */
                partition?: string;
            };
            header?: never;
            path: {
                /** @description Queue name (percent-encoded; `%2F` is part of the name). */
                queue: components["parameters"]["queuePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description Cleared.
             *
             *     A look-up that misses is also a 200, with header `X-Queen-Status: 404` and body `{"success":false,"error":"Queue not found"}` or `{"success":false,"error":"Partition not found"}`.
             */
            200: {
                headers: {
                    /** @description `404` when the look-up missed (the status stays 200 so that the official client does not throw). */
                    "X-Queen-Status"?: "404";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClearResult"] | components["schemas"]["NotFound"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    push: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PushRequest"];
            };
        };
        responses: {
            /** @description One result per item, in input order (also when every item is a duplicate or failed; `[]` for `items: []`). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PushResult"][];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Empty request body`
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `items array is required`
             *     - `Each item must be an object`
             *     - `Queue must be a string`
             *     - `Partition must be a string`
             *     - `TransactionId must be a string`
             *     - `TraceId must be a string`
             *     - `Traceparent must be a string`
             *     - `Tracestate must be a string`
             *     - `Tracestate needs a traceparent`
             *     - `Invalid traceparent: must be a W3C traceparent (00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>)`
             *     - `Invalid tracestate: must be a W3C tracestate (at most 32 key=value members, 512 characters)`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            /** @description Items had to be buffered and at least one could not be written to the buffer (those items: `failed`, `File buffer write failed`); or a server error (`{"error": ...}`, see the other 500s). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PushResult"][] | components["schemas"]["Error"];
                };
            };
            /**
             * @description The items had to be buffered and the failover buffer is full (`FILE_BUFFER_MAX_BYTES`: none of them was kept), the database is unreachable for another reason than a push, or too many request bytes are in flight. Retry after `Retry-After` seconds.
             *
             *     Error texts:
             *     - `Service Unavailable: the failover buffer is full`
             *     - `Service Unavailable: the database is unreachable`
             *     - `Server busy: too many request bytes in flight, retry later`
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    popPartition: {
        parameters: {
            query?: {
                /** @description Total message budget of the call, shared by every partition it touches. Default `DEFAULT_BATCH_SIZE` (1); above `POP_MAX_BATCH_SIZE` (10000): clamped; below 1 or not an integer: 400. */
                batch?: number;
                /** @description Long poll: wait until messages arrive or `timeout` elapses. `true`/`1`, `false`/`0`; anything else: 400. */
                wait?: boolean;
                /** @description Long-poll deadline in ms (only with `wait=true`), counted from the request's arrival. Default `DEFAULT_TIMEOUT`, else `POP_DEFAULT_TIMEOUT_MS`, else 30000; 0 or less: one attempt; above 600000: clamped. */
                timeout?: number;
                /** @description Lease length for this call; 0 or less (or absent): the queue's `leaseTime` (60 s on implicitly created queues, 300 s after `/configure`). Above 315360000: 400. */
                leaseSeconds?: number;
                /** @description Consumer group; absent or empty: queue mode (`__QUEUE_MODE__`). */
                consumerGroup?: string;
                /** @description Commit the cursor instead of taking a lease (at-most-once delivery; `leaseId` is `""`). */
                autoAck?: boolean;
                /** @description Where a never-contacted cursor of a named group starts: `all` (oldest retained), `new`/`new-only` (from now). Default `DEFAULT_SUBSCRIPTION_MODE` (`all`); other values: `all`. */
                subscriptionMode?: "all" | "new" | "new-only";
                /** @description `now` or an ISO-8601 timestamp; wins over `subscriptionMode`; an unparseable value is ignored. */
                subscriptionFrom?: string;
            };
            header?: never;
            path: {
                /** @description Queue name (percent-encoded; `%2F` is part of the name). */
                queue: components["parameters"]["queuePath"];
                /** @description Partition name. */
                partition: components["parameters"]["partitionPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description At least one message was delivered. Messages are grouped by partition in claim order, in offset order within a partition; ack each with its own `partitionId`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PopResponse"];
                };
            };
            /** @description Nothing was delivered, for any reason; no body. `X-Queen-Empty-Reason` says why (for logging only): `none`, `leased`, `no_partition`, `window_buffer`, `delayed`, `retry_delay` (the last five on the single-partition route), `timeout` (long poll reached its deadline), `paused` (pop maintenance), `error` (the pop failed, e.g. a payload could not be decrypted), `shutdown` (the broker stopped while the pop waited). */
            204: {
                headers: {
                    "X-Queen-Empty-Reason": "none" | "leased" | "no_partition" | "window_buffer" | "delayed" | "retry_delay" | "timeout" | "paused" | "error" | "shutdown";
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Invalid request (pop shape).
             *
             *     Error texts:
             *     - `Invalid queue name`
             *     - `Invalid queue name: "." and ".." are not allowed`
             *     - `Invalid partition name`
             *     - `Invalid partition name: "." and ".." are not allowed`
             *     - `Invalid consumerGroup`
             *     - `Invalid consumerGroup: "." and ".." are not allowed`
             *     - `Invalid namespace`
             *     - `Invalid namespace: "." and ".." are not allowed`
             *     - `Invalid task`
             *     - `Invalid task: "." and ".." are not allowed`
             *     - `Invalid <parameter>: must be <accepted range> (got "<value>")`
             *     - `Malformed URL encoding`
             *     - `Invalid <name>: must be an integer of at most <max>`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PopError"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["PopServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    popQueue: {
        parameters: {
            query?: {
                /** @description Total message budget of the call, shared by every partition it touches. Default `DEFAULT_BATCH_SIZE` (1); above `POP_MAX_BATCH_SIZE` (10000): clamped; below 1 or not an integer: 400. */
                batch?: number;
                /** @description Long poll: wait until messages arrive or `timeout` elapses. `true`/`1`, `false`/`0`; anything else: 400. */
                wait?: boolean;
                /** @description Long-poll deadline in ms (only with `wait=true`), counted from the request's arrival. Default `DEFAULT_TIMEOUT`, else `POP_DEFAULT_TIMEOUT_MS`, else 30000; 0 or less: one attempt; above 600000: clamped. */
                timeout?: number;
                /** @description Lease length for this call; 0 or less (or absent): the queue's `leaseTime` (60 s on implicitly created queues, 300 s after `/configure`). Above 315360000: 400. */
                leaseSeconds?: number;
                /** @description Consumer group; absent or empty: queue mode (`__QUEUE_MODE__`). */
                consumerGroup?: string;
                /** @description Commit the cursor instead of taking a lease (at-most-once delivery; `leaseId` is `""`). */
                autoAck?: boolean;
                /** @description Where a never-contacted cursor of a named group starts: `all` (oldest retained), `new`/`new-only` (from now). Default `DEFAULT_SUBSCRIPTION_MODE` (`all`); other values: `all`. */
                subscriptionMode?: "all" | "new" | "new-only";
                /** @description `now` or an ISO-8601 timestamp; wins over `subscriptionMode`; an unparseable value is ignored. */
                subscriptionFrom?: string;
                /** @description Most partitions claimed by the call; 0 or less: no bound. */
                partitions?: number;
            };
            header?: never;
            path: {
                /** @description Queue name (percent-encoded; `%2F` is part of the name). */
                queue: components["parameters"]["queuePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description At least one message was delivered. Messages are grouped by partition in claim order, in offset order within a partition; ack each with its own `partitionId`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PopResponse"];
                };
            };
            /** @description Nothing was delivered, for any reason; no body. `X-Queen-Empty-Reason` says why (for logging only): `none`, `leased`, `no_partition`, `window_buffer`, `delayed`, `retry_delay` (the last five on the single-partition route), `timeout` (long poll reached its deadline), `paused` (pop maintenance), `error` (the pop failed, e.g. a payload could not be decrypted), `shutdown` (the broker stopped while the pop waited). */
            204: {
                headers: {
                    "X-Queen-Empty-Reason": "none" | "leased" | "no_partition" | "window_buffer" | "delayed" | "retry_delay" | "timeout" | "paused" | "error" | "shutdown";
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Invalid request (pop shape).
             *
             *     Error texts:
             *     - `Invalid queue name`
             *     - `Invalid queue name: "." and ".." are not allowed`
             *     - `Invalid partition name`
             *     - `Invalid consumerGroup`
             *     - `Invalid consumerGroup: "." and ".." are not allowed`
             *     - `Invalid namespace`
             *     - `Invalid namespace: "." and ".." are not allowed`
             *     - `Invalid task`
             *     - `Invalid task: "." and ".." are not allowed`
             *     - `Invalid <parameter>: must be <accepted range> (got "<value>")`
             *     - `Malformed URL encoding`
             *     - `Invalid <name>: must be an integer of at most <max>`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PopError"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["PopServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    popDiscovery: {
        parameters: {
            query?: {
                /** @description Total message budget of the call, shared by every partition it touches. Default `DEFAULT_BATCH_SIZE` (1); above `POP_MAX_BATCH_SIZE` (10000): clamped; below 1 or not an integer: 400. */
                batch?: number;
                /** @description Long poll: wait until messages arrive or `timeout` elapses. `true`/`1`, `false`/`0`; anything else: 400. */
                wait?: boolean;
                /** @description Long-poll deadline in ms (only with `wait=true`), counted from the request's arrival. Default `DEFAULT_TIMEOUT`, else `POP_DEFAULT_TIMEOUT_MS`, else 30000; 0 or less: one attempt; above 600000: clamped. */
                timeout?: number;
                /** @description Lease length for this call; 0 or less (or absent): the queue's `leaseTime` (60 s on implicitly created queues, 300 s after `/configure`). Above 315360000: 400. */
                leaseSeconds?: number;
                /** @description Consumer group; absent or empty: queue mode (`__QUEUE_MODE__`). */
                consumerGroup?: string;
                /** @description Commit the cursor instead of taking a lease (at-most-once delivery; `leaseId` is `""`). */
                autoAck?: boolean;
                /** @description Where a never-contacted cursor of a named group starts: `all` (oldest retained), `new`/`new-only` (from now). Default `DEFAULT_SUBSCRIPTION_MODE` (`all`); other values: `all`. */
                subscriptionMode?: "all" | "new" | "new-only";
                /** @description `now` or an ISO-8601 timestamp; wins over `subscriptionMode`; an unparseable value is ignored. */
                subscriptionFrom?: string;
                /** @description Most partitions claimed by the call; 0 or less: no bound. */
                partitions?: number;
                /** @description Queues of this namespace. */
                namespace?: string;
                /** @description Queues of this task. */
                task?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description At least one message was delivered. Messages are grouped by partition in claim order, in offset order within a partition; ack each with its own `partitionId`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PopResponse"];
                };
            };
            /** @description Nothing was delivered, for any reason; no body. `X-Queen-Empty-Reason` says why (for logging only): `none`, `leased`, `no_partition`, `window_buffer`, `delayed`, `retry_delay` (the last five on the single-partition route), `timeout` (long poll reached its deadline), `paused` (pop maintenance), `error` (the pop failed, e.g. a payload could not be decrypted), `shutdown` (the broker stopped while the pop waited). */
            204: {
                headers: {
                    "X-Queen-Empty-Reason": "none" | "leased" | "no_partition" | "window_buffer" | "delayed" | "retry_delay" | "timeout" | "paused" | "error" | "shutdown";
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Invalid request (pop shape).
             *
             *     Error texts:
             *     - `namespace or task is required`
             *     - `Invalid consumerGroup`
             *     - `Invalid consumerGroup: "." and ".." are not allowed`
             *     - `Invalid namespace`
             *     - `Invalid namespace: "." and ".." are not allowed`
             *     - `Invalid task`
             *     - `Invalid task: "." and ".." are not allowed`
             *     - `Invalid <parameter>: must be <accepted range> (got "<value>")`
             *     - `Malformed URL encoding`
             *     - `Invalid <name>: must be an integer of at most <max>`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PopError"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["PopServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    ackMessage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AckItem"];
            };
        };
        responses: {
            /** @description One result. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AckResult"][];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Empty request body`
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `transactionId is required`
             *     - `partitionId is required to ensure message uniqueness`
             *     - `Invalid consumerGroup`
             *     - `Invalid consumerGroup: "." and ".." are not allowed`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    ackBatch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AckBatchRequest"];
            };
        };
        responses: {
            /** @description One result per acknowledgment. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AckResult"][];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Empty request body`
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `acknowledgments array is required`
             *     - `Each acknowledgment must have a valid transactionId string`
             *     - `Each acknowledgment must have a valid partitionId string to ensure message uniqueness`
             *     - `Invalid consumerGroup`
             *     - `Invalid consumerGroup: "." and ".." are not allowed`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    extendLease: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The leaseId of a pop. */
                leaseId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * @description 0 or less: 60
                     * @default 60
                     */
                    seconds?: number;
                };
            };
        };
        responses: {
            /** @description One result; `newExpiresAt` equals `expiresAt`; both null on failure. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LeaseExtendResult"][];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    transaction: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TransactionRequest"];
            };
        };
        responses: {
            /** @description Committed (`success:true`) or rolled back (`success:false`). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TransactionResult"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Empty request body`
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `operations array required`
             *     - `operations array cannot be empty`
             *     - `Each operation must be an object`
             *     - `push operation requires an items array`
             *     - `ack operation requires transactionId and partitionId`
             *     - `Invalid consumerGroup`
             *     - `Invalid consumerGroup: "." and ".." are not allowed`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /**
             * @description Body over `MAX_PAYLOAD_BYTES`, or more operations than `TRANSACTION_MAX_OPERATIONS`.
             *
             *     Error texts:
             *     - `Payload too large`
             *     - `Transaction too large: <n> operations, at most <max> (TRANSACTION_MAX_OPERATIONS)`
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listQueues: {
        parameters: {
            query?: {
                /** @description Only queues of this namespace. */
                namespace?: components["parameters"]["namespaceFilter"];
                /** @description Only queues of this task. */
                task?: components["parameters"]["taskFilter"];
                /** @description Page size; absent: every queue (at most 100000). Not an integer or below 1: absent; above 100000: clamped; above 2147483647: 400. */
                limit?: number;
                /** @description Rows to skip. Negative or not an integer: 0; above 2147483647: 400. */
                offset?: components["parameters"]["offset"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The queues. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QueueList"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             *     - `Invalid <name>: must be an integer of at most <max>`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listNamespaces: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The namespaces. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceList"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listTasks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tasks. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskList"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getOverview: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The overview. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Overview"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listPartitions: {
        parameters: {
            query?: {
                /** @description Only this queue. */
                queue?: components["parameters"]["queueFilter"];
                /** @description Only queues of this namespace. */
                namespace?: components["parameters"]["namespaceFilter"];
                /** @description Only queues of this task. */
                task?: components["parameters"]["taskFilter"];
                /** @description Page size. Not an integer or below 1: the default; above 1000: clamped; above 2147483647: 400 `Invalid limit: must be an integer of at most 2147483647`. */
                limit?: number;
                /** @description Rows to skip. Negative or not an integer: 0; above 2147483647: 400. */
                offset?: components["parameters"]["offset"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of partitions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PartitionList"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             *     - `Invalid <name>: must be an integer of at most <max>`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listMessages: {
        parameters: {
            query?: {
                /** @description Only this queue. */
                queue?: components["parameters"]["queueFilter"];
                /** @description Only this partition. */
                partition?: string;
                /** @description Only this namespace (alias `namespace`). */
                ns?: string;
                /** @description Only queues of this namespace. */
                namespace?: components["parameters"]["namespaceFilter"];
                /** @description Only queues of this task. */
                task?: components["parameters"]["taskFilter"];
                /** @description Only messages in this state. */
                status?: "pending" | "processing" | "completed" | "dead_letter";
                /** @description Start of the time range (ISO-8601; without a zone: UTC). Default: one hour ago. */
                from?: components["parameters"]["from"];
                /** @description End of the time range (ISO-8601). Default: now. */
                to?: components["parameters"]["to"];
                /** @description Page size. Not an integer or below 1: the default; above 1000: clamped; above 2147483647: 400 `Invalid limit: must be an integer of at most 2147483647`. */
                limit?: number;
                /** @description Rows to skip. Negative or not an integer: 0; above 2147483647: 400. */
                offset?: components["parameters"]["offset"];
                /** @description The `nextCursor` of the previous page. */
                cursor?: string;
                /** @description Characters of each payload's JSON text to include (`payloadPreview`, `payloadTruncated`, `payloadBytes`); 0: none. */
                preview?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of messages. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageList"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Invalid cursor`
             *     - `Invalid preview: must be an integer from 0 to 1000`
             *     - `Malformed URL encoding`
             *     - `Invalid <name>: must be an integer of at most <max>`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Partition id (a UUID; anything else simply misses). */
                partitionId: components["parameters"]["partitionIdPath"];
                /** @description The message's transactionId. */
                transactionId: components["parameters"]["transactionIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description The message.
             *
             *     A look-up that misses is also a 200, with header `X-Queen-Status: 404` and body `{"error":"Message not found"}`.
             */
            200: {
                headers: {
                    /** @description `404` when the look-up missed (the status stays 200 so that the official client does not throw). */
                    "X-Queen-Status"?: "404";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageDetail"] | components["schemas"]["NotFound"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Partition id (a UUID; anything else simply misses). */
                partitionId: components["parameters"]["partitionIdPath"];
                /** @description The message's transactionId. */
                transactionId: components["parameters"]["transactionIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description Deleted.
             *
             *     A look-up that misses is also a 200, with header `X-Queen-Status: 404` and body `{"success":false,...,"message":"Message not found"}`.
             */
            200: {
                headers: {
                    /** @description `404` when the look-up missed (the status stays 200 so that the official client does not throw). */
                    "X-Queen-Status"?: "404";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageDeleteResult"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    retryMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Partition id (a UUID; anything else simply misses). */
                partitionId: components["parameters"]["partitionIdPath"];
                /** @description The message's transactionId. */
                transactionId: components["parameters"]["transactionIdPath"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, unknown>;
            };
        };
        responses: {
            /**
             * @description Requeued, or refused.
             *
             *     A look-up that misses is also a 200, with header `X-Queen-Status: 404` and body `{"success":false,"error":"Message not found"}`.
             */
            200: {
                headers: {
                    /** @description `404` when the look-up missed (the status stays 200 so that the official client does not throw). */
                    "X-Queen-Status"?: "404";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["RequeueResult"] | components["schemas"]["AdminFailure"]) | components["schemas"]["NotFound"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    moveMessageToDlq: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Partition id (a UUID; anything else simply misses). */
                partitionId: components["parameters"]["partitionIdPath"];
                /** @description The message's transactionId. */
                transactionId: components["parameters"]["transactionIdPath"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    consumerGroup?: string | null;
                    error?: string | null;
                };
            };
        };
        responses: {
            /**
             * @description Moved, or refused.
             *
             *     A look-up that misses is also a 200, with header `X-Queen-Status: 404` and body `{"success":false,"error":"Message not found"}`.
             */
            200: {
                headers: {
                    /** @description `404` when the look-up missed (the status stays 200 so that the official client does not throw). */
                    "X-Queen-Status"?: "404";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["MoveToDlqResult"] | components["schemas"]["AdminFailure"]) | components["schemas"]["NotFound"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `Invalid consumerGroup`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listDlq: {
        parameters: {
            query?: {
                /** @description Only this queue. */
                queue?: components["parameters"]["queueFilter"];
                /** @description Only this group. */
                consumerGroup?: string;
                /** @description Only this partition. */
                partition?: string;
                /** @description Earliest `failedAt` (ISO-8601). */
                from?: string;
                /** @description Latest `failedAt` (ISO-8601). */
                to?: string;
                /** @description Page size. Not an integer or below 1: the default; above 1000: clamped; above 2147483647: 400 `Invalid limit: must be an integer of at most 2147483647`. */
                limit?: number;
                /** @description Rows to skip. Negative or not an integer: 0; above 2147483647: 400. */
                offset?: components["parameters"]["offset"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of entries. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DlqList"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             *     - `Invalid <name>: must be an integer of at most <max>`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    recordTrace: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TraceRequest"];
            };
        };
        responses: {
            /**
             * @description The message does not exist.
             *
             *     A look-up that misses is also a 200, with header `X-Queen-Status: 404` and body `{"success":false,"error":"Message not found"}`.
             */
            200: {
                headers: {
                    /** @description `404` when the look-up missed (the status stays 200 so that the official client does not throw). */
                    "X-Queen-Status"?: "404";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminFailure"] | components["schemas"]["NotFound"];
                };
            };
            /** @description Recorded. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TraceRecorded"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Empty request body`
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `transactionId and partitionId are required`
             *     - `data is required`
             *     - `Invalid traceNames`
             *     - `Invalid traceNames: "." and ".." are not allowed`
             *     - `Invalid consumerGroup`
             *     - `Invalid consumerGroup: "." and ".." are not allowed`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listTraceNames: {
        parameters: {
            query?: {
                /** @description Page size. Not an integer or below 1: the default; above 1000: clamped; above 2147483647: 400 `Invalid limit: must be an integer of at most 2147483647`. */
                limit?: number;
                /** @description Rows to skip. Negative or not an integer: 0; above 2147483647: 400. */
                offset?: components["parameters"]["offset"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of names. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TraceNames"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             *     - `Invalid <name>: must be an integer of at most <max>`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listTracesByName: {
        parameters: {
            query?: {
                /** @description Page size. Not an integer or below 1: the default; above 1000: clamped; above 2147483647: 400 `Invalid limit: must be an integer of at most 2147483647`. */
                limit?: number;
                /** @description Rows to skip. Negative or not an integer: 0; above 2147483647: 400. */
                offset?: components["parameters"]["offset"];
            };
            header?: never;
            path: {
                /** @description Trace name. */
                traceName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of events. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TracesByName"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             *     - `Invalid <name>: must be an integer of at most <max>`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getTraces: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Partition id (a UUID; anything else simply misses). */
                partitionId: components["parameters"]["partitionIdPath"];
                /** @description The message's transactionId. */
                transactionId: components["parameters"]["transactionIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The events. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageTraces"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listConsumerGroups: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The groups. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsumerGroupSummary"][];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listLaggingConsumerGroups: {
        parameters: {
            query?: {
                /** @description Smallest time lag reported. */
                minLagSeconds?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Largest lag first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LaggingPartition"][];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `minLagSeconds must be an integer`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getConsumerGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Consumer group name. */
                group: components["parameters"]["groupPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The group. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsumerGroupDetail"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteConsumerGroup: {
        parameters: {
            query?: {
                /** @description Also delete the subscription records. */
                deleteMetadata?: boolean;
            };
            header?: never;
            path: {
                /** @description Consumer group name. */
                group: components["parameters"]["groupPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GroupDeleteResult"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteConsumerGroupForQueue: {
        parameters: {
            query?: {
                /** @description Also delete the subscription records. */
                deleteMetadata?: boolean;
            };
            header?: never;
            path: {
                /** @description Consumer group name. */
                group: components["parameters"]["groupPath"];
                /** @description Queue name (percent-encoded; `%2F` is part of the name). */
                queue: components["parameters"]["queuePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GroupDeleteResult"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    updateSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Consumer group name. */
                group: components["parameters"]["groupPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SubscriptionRequest"];
            };
        };
        responses: {
            /** @description Updated, or refused. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionResult"] | components["schemas"]["AdminFailure"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Empty request body`
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `Missing subscriptionTimestamp in request body`
             *     - `subscriptionTimestamp must be a string`
             *     - `Invalid consumerGroup`
             *     - `Invalid consumerGroup: "." and ".." are not allowed`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    seekQueue: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Consumer group name. */
                group: components["parameters"]["groupPath"];
                /** @description Queue name (percent-encoded; `%2F` is part of the name). */
                queue: components["parameters"]["queuePath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SeekRequest"];
            };
        };
        responses: {
            /**
             * @description Moved.
             *
             *     A look-up that misses is also a 200, with header `X-Queen-Status: 404` and body `{"success":false,"error":"Queue not found"}`.
             */
            200: {
                headers: {
                    /** @description `404` when the look-up missed (the status stays 200 so that the official client does not throw). */
                    "X-Queen-Status"?: "404";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SeekResult"] | components["schemas"]["NotFound"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Empty request body`
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `Must specify either 'toEnd': true or 'timestamp'`
             *     - `Invalid timestamp`
             *     - `Invalid consumerGroup`
             *     - `Invalid consumerGroup: "." and ".." are not allowed`
             *     - `Invalid queue name`
             *     - `Invalid queue name: "." and ".." are not allowed`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    seekPartition: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Consumer group name. */
                group: components["parameters"]["groupPath"];
                /** @description Queue name (percent-encoded; `%2F` is part of the name). */
                queue: components["parameters"]["queuePath"];
                /** @description Partition name. */
                partition: components["parameters"]["partitionPath"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["SeekRequest"];
            };
        };
        responses: {
            /**
             * @description Moved.
             *
             *     A look-up that misses is also a 200, with header `X-Queen-Status: 404` and body `{"success":false,"error":"Partition not found"}`.
             */
            200: {
                headers: {
                    /** @description `404` when the look-up missed (the status stays 200 so that the official client does not throw). */
                    "X-Queen-Status"?: "404";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PartitionSeekResult"] | components["schemas"]["NotFound"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `Invalid timestamp`
             *     - `Invalid consumerGroup`
             *     - `Invalid consumerGroup: "." and ".." are not allowed`
             *     - `Invalid queue name`
             *     - `Invalid queue name: "." and ".." are not allowed`
             *     - `Invalid partition name`
             *     - `Invalid partition name: "." and ".." are not allowed`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    refreshStats: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, unknown>;
            };
        };
        responses: {
            /** @description Refreshed or skipped. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatsRefresh"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getMaintenance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The state. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MaintenanceState"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    setMaintenance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MaintenanceRequest"];
            };
        };
        responses: {
            /** @description The new state. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MaintenanceSet"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Empty request body`
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `enabled (boolean) is required`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getPopMaintenance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The state. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PopMaintenance"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    setPopMaintenance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MaintenanceRequest"];
            };
        };
        responses: {
            /** @description The new state. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PopMaintenance"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Empty request body`
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `enabled (boolean) is required`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getSharedState: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The processes. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SharedState"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getStatus: {
        parameters: {
            query?: {
                /** @description Start of the time range (ISO-8601; without a zone: UTC). Default: one hour ago. */
                from?: components["parameters"]["from"];
                /** @description End of the time range (ISO-8601). Default: now. */
                to?: components["parameters"]["to"];
                /** @description Only this queue. */
                queue?: components["parameters"]["queueFilter"];
                /** @description Only queues of this namespace. */
                namespace?: components["parameters"]["namespaceFilter"];
                /** @description Only queues of this task. */
                task?: components["parameters"]["taskFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The status. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Status"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listQueueStatus: {
        parameters: {
            query?: {
                /** @description Start of the time range (ISO-8601; without a zone: UTC). Default: one hour ago. */
                from?: components["parameters"]["from"];
                /** @description End of the time range (ISO-8601). Default: now. */
                to?: components["parameters"]["to"];
                /** @description Only queues of this namespace. */
                namespace?: components["parameters"]["namespaceFilter"];
                /** @description Only queues of this task. */
                task?: components["parameters"]["taskFilter"];
                /** @description Page size. Not an integer or below 1: the default; above 1000: clamped; above 2147483647: 400 `Invalid limit: must be an integer of at most 2147483647`. */
                limit?: number;
                /** @description Rows to skip. Negative or not an integer: 0; above 2147483647: 400. */
                offset?: components["parameters"]["offset"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of queues. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusQueues"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             *     - `Invalid <name>: must be an integer of at most <max>`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getQueueStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Queue name (percent-encoded; `%2F` is part of the name). */
                queue: components["parameters"]["queuePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description The queue.
             *
             *     A look-up that misses is also a 200, with header `X-Queen-Status: 404` and body `{"error":"Queue not found"}`.
             */
            200: {
                headers: {
                    /** @description `404` when the look-up missed (the status stays 200 so that the official client does not throw). */
                    "X-Queen-Status"?: "404";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusQueue"] | components["schemas"]["NotFound"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    listQueueStatusMessages: {
        parameters: {
            query?: {
                /** @description Page size. Not an integer or below 1: the default; above 1000: clamped; above 2147483647: 400 `Invalid limit: must be an integer of at most 2147483647`. */
                limit?: number;
                /** @description Rows to skip. Negative or not an integer: 0; above 2147483647: 400. */
                offset?: components["parameters"]["offset"];
            };
            header?: never;
            path: {
                /** @description Queue name (percent-encoded; `%2F` is part of the name). */
                queue: components["parameters"]["queuePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `[]` when none or the queue is unknown. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusQueueMessages"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             *     - `Invalid <name>: must be an integer of at most <max>`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getStatusAnalytics: {
        parameters: {
            query?: {
                /** @description Start (ISO-8601). Default: 24 hours ago. */
                from?: string;
                /** @description End of the time range (ISO-8601). Default: now. */
                to?: components["parameters"]["to"];
                /** @description Only this queue. */
                queue?: components["parameters"]["queueFilter"];
                /** @description Only queues of this namespace. */
                namespace?: components["parameters"]["namespaceFilter"];
                /** @description Only queues of this task. */
                task?: components["parameters"]["taskFilter"];
                /** @description Bucket size. */
                interval?: "minute" | "hour" | "day";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The series. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusAnalytics"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getBufferStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `worker` is the server id. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BufferStatus"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getSystemMetrics: {
        parameters: {
            query?: {
                /** @description Start of the time range (ISO-8601; without a zone: UTC). Default: one hour ago. */
                from?: components["parameters"]["from"];
                /** @description End of the time range (ISO-8601). Default: now. */
                to?: components["parameters"]["to"];
                /** @description Only this host. */
                hostname?: string;
                /** @description Only this broker process (server id). */
                workerId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The series per process. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SystemMetrics"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getWorkerMetrics: {
        parameters: {
            query?: {
                /** @description Start of the time range (ISO-8601; without a zone: UTC). Default: one hour ago. */
                from?: components["parameters"]["from"];
                /** @description End of the time range (ISO-8601). Default: now. */
                to?: components["parameters"]["to"];
                /** @description Only this host. */
                hostname?: string;
                /** @description Only this broker process (server id). */
                workerId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The series. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkerMetrics"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getQueueLag: {
        parameters: {
            query?: {
                /** @description Start of the time range (ISO-8601; without a zone: UTC). Default: one hour ago. */
                from?: components["parameters"]["from"];
                /** @description End of the time range (ISO-8601). Default: now. */
                to?: components["parameters"]["to"];
                /** @description Only this queue. */
                queue?: components["parameters"]["queueFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The series. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QueueLag"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getQueueOps: {
        parameters: {
            query?: {
                /** @description Start of the time range (ISO-8601; without a zone: UTC). Default: one hour ago. */
                from?: components["parameters"]["from"];
                /** @description End of the time range (ISO-8601). Default: now. */
                to?: components["parameters"]["to"];
                /** @description Only this queue. */
                queue?: components["parameters"]["queueFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The series. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QueueOps"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getParkedReplicas: {
        parameters: {
            query?: {
                /** @description Only this queue. */
                queue?: components["parameters"]["queueFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The figures. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParkedReplicas"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getRetentionHistory: {
        parameters: {
            query?: {
                /** @description Start of the time range (ISO-8601; without a zone: UTC). Default: one hour ago. */
                from?: components["parameters"]["from"];
                /** @description End of the time range (ISO-8601). Default: now. */
                to?: components["parameters"]["to"];
                /** @description Only this queue. */
                queue?: components["parameters"]["queueFilter"];
                /** @description Page size. Not an integer or below 1: the default; above 1000: clamped; above 2147483647: 400 `Invalid limit: must be an integer of at most 2147483647`. */
                limit?: number;
                /** @description Rows to skip. Negative or not an integer: 0; above 2147483647: 400. */
                offset?: components["parameters"]["offset"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of history. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RetentionHistory"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             *     - `Invalid <name>: must be an integer of at most <max>`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getPostgresStats: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The statistics. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostgresStats"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    registerQuery: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StreamQueryRequest"];
            };
        };
        responses: {
            /** @description Registered. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StreamQueryResult"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Empty request body`
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `<field> is required`
             *     - `<field> must be a string`
             *     - `<field> must be a boolean`
             *     - `<field> is too long (max 255 characters)`
             *     - `Invalid <field>: "." and ".." are not allowed`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Same name with another `config_hash` and `reset:false`: `error` is `config_hash mismatch: stored <old>, got <new>`. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StreamQueryConflict"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    cycle: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StreamCycleRequest"];
            };
        };
        responses: {
            /** @description Applied (`success:true`) or rolled back (`success:false`). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StreamCycleResult"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Empty request body`
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `query_id and partition_id are required`
             *     - `state_ops must be an array`
             *     - `Each state_op must be an object`
             *     - `state_op key must be a string`
             *     - `push_items must be an array`
             *     - `ack must be an object`
             *     - `ack.count must be a number`
             *     - `<field> must be a UUID`
             *     - `consumer_group is too long (max 255 characters)`
             *     - `Invalid consumer_group: "." and ".." are not allowed`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
    getState: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StreamStateRequest"];
            };
        };
        responses: {
            /** @description The rows (`success:false` with `error` and `rows: []` on failure). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StreamStateResult"];
                };
            };
            /**
             * @description Invalid request.
             *
             *     Error texts:
             *     - `Empty request body`
             *     - `Invalid JSON: <parser message>`
             *     - `Request body must be a JSON object`
             *     - `Invalid JSON: nested deeper than <n> levels`
             *     - `query_id and partition_id are required`
             *     - `<field> must be a UUID`
             *     - `Malformed URL encoding`
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["ServerError"];
            503: components["responses"]["Unavailable"];
        };
    };
}
