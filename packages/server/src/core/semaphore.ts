/**
 * A counting semaphore: at most `limit` tasks run at once, the rest wait in arrival order, urgent ones
 * (a parked pop's attempt after a wake) ahead of the others (its periodic re-checks).
 */
export class Semaphore {
  private active = 0;
  private readonly urgent: Array<() => void> = [];
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Runs `task` once a slot is free; an urgent task takes the next free slot before any non-urgent one. */
  async run<T>(task: () => Promise<T>, urgent = false): Promise<T> {
    if (this.active >= this.limit) {
      await new Promise<void>((resolve) => (urgent ? this.urgent : this.waiting).push(resolve));
    } else {
      this.active += 1;
    }
    try {
      return await task();
    } finally {
      const next = this.urgent.shift() ?? this.waiting.shift();
      if (next) next(); // hand the slot over directly
      else this.active -= 1;
    }
  }
}
