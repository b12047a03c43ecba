/**
 * A counting semaphore: at most `limit` tasks run at once, the rest wait in arrival order, urgent ones
 * (a parked pop's attempt after a wake) ahead of the others (its periodic re-checks). A waiting task can be
 * promoted to urgent (a wake arrived while its re-check was still queued).
 */
export class Semaphore {
  private active = 0;
  private readonly urgent: Array<() => void> = [];
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /**
   * Runs `task` once a slot is free; an urgent task takes the next free slot before any non-urgent one.
   * `onQueued`, called when a non-urgent task has to wait, receives a function that promotes it to urgent
   * (true if it was still waiting, so it has not started yet).
   */
  async run<T>(task: () => Promise<T>, urgent = false, onQueued?: (promote: () => boolean) => void): Promise<T> {
    if (this.active >= this.limit) {
      await new Promise<void>((resolve) => {
        if (urgent) {
          this.urgent.push(resolve);
          return;
        }
        this.waiting.push(resolve);
        onQueued?.(() => {
          const at = this.waiting.indexOf(resolve);
          if (at < 0) return false;
          this.waiting.splice(at, 1);
          this.urgent.push(resolve);
          return true;
        });
      });
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
