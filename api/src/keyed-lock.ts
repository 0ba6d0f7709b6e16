/**
 * Runs work for one key at a time (one box, one player); work for other keys runs freely.
 * A failure of one piece of work does not block the next.
 */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(fn);
    this.#tails.set(key, next);
    void next
      .catch(() => undefined)
      .finally(() => {
        if (this.#tails.get(key) === next) this.#tails.delete(key);
      });
    return next;
  }

  /** Whether work for `key` is running or waiting. */
  busy(key: string): boolean {
    return this.#tails.has(key);
  }

  /** Settles once every piece of work queued so far has ended. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.#tails.values()]);
  }
}
