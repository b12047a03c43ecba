/**
 * Where colour turns amber (warn) and red (bad): one table, the same figures docs/dashboard.md lists under
 * "Colour". A value at or above `warn` is amber, at or above `bad` red; below both it has no colour (or green
 * where a view shows a healthy state). Never relative to other rows: the deepest queue is not red for being
 * the deepest.
 */
export const THRESHOLDS = {
  /** Pending messages of the installation or of one queue. */
  pending: { warn: 1000, bad: 10_000 },
  /** Age of the oldest unconsumed message (time lag), seconds. */
  lagSeconds: { warn: 60, bad: 300 },
  /** Delivery lag of popped messages, ms (Queues "Lag p99"). */
  deliveryLagMs: { warn: 10_000, bad: 60_000 },
  /** Event-loop delay, ms. */
  eventLoopMs: { warn: 100, bad: 500 },
  /** CPU of one broker, % of one core. */
  cpuPercent: { warn: 70, bad: 90 },
  /** Database pool in use, fraction of its size. */
  poolUse: { warn: 0.8, bad: 1 },
  /** Failed acks in the range (any is amber). */
  ackFailed: { warn: 1, bad: 100 },
} as const;

/**
 * "Falling behind" needs real traffic: the pop/push ratio of a queue is judged only when it received at least
 * this many messages in the 15-minute window (about 1 a second) and holds at least `FALLING_MIN_PENDING`.
 * A toy workload (8 pushes, nobody popping yet) is "waiting", not falling behind.
 */
export const FALLING_MIN_PUSHED = 1000;
export const FALLING_MIN_PENDING = 100;
/** Delivery lag p99 is judged only over at least this many deliveries in the window (else it is one message's wait). */
export const LAG_MIN_POPPED = 100;
/** Pops per group below these fractions of pushes: amber, red (with the minimums above). */
export const FALLING_RATIO = { warn: 0.85, bad: 0.65 } as const;
