/** A thenable for one-shot operations (`create()`, `delete()`): runs once when awaited, with optional callbacks. */

/** Runs `action` once when awaited; `onSuccess`/`onError` observe (and, for errors, absorb) the outcome. */
export class OperationBuilder<R> implements PromiseLike<R> {
  private successCb: ((result: R) => unknown) | undefined;
  private errorCb: ((error: unknown) => unknown) | undefined;
  private running: Promise<R> | undefined;

  constructor(private readonly action: () => Promise<R>) {}

  /** Called with the result. */
  onSuccess(cb: (result: R) => unknown): this {
    this.successCb = cb;
    return this;
  }

  /** Called with the error; the operation then resolves with `undefined` instead of rejecting. */
  onError(cb: (error: unknown) => unknown): OperationBuilder<R | undefined> {
    this.errorCb = cb;
    return this as OperationBuilder<R | undefined>;
  }

  then<A = R, B = never>(onfulfilled?: ((value: R) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    this.running ??= this.run();
    return this.running.then(onfulfilled, onrejected);
  }

  private async run(): Promise<R> {
    let result: R;
    try {
      result = await this.action();
    } catch (error) {
      if (!this.errorCb) throw error;
      await this.errorCb(error);
      return undefined as R;
    }
    await this.successCb?.(result);
    return result;
  }
}
