/**
 * A work queue of object keys in the manner of client-go's: a key waits at most once however
 * often it is added, is never handled by two workers at once (added while in flight, it runs again
 * afterwards), and a key that failed comes back after an exponential delay per key.
 */
export interface QueueOptions {
  /** Keys handled at the same time. */
  concurrency: number;
  /** First retry delay after a failure; doubles per consecutive failure up to maxRetryMs. */
  baseRetryMs?: number;
  maxRetryMs?: number;
}

/** What a handler answers: nothing, or when to look at the key again (e.g. an attack window's end). */
export type HandlerResult = void | { requeueAfterMs: number };

export class WorkQueue {
  readonly #handle: (key: string) => Promise<HandlerResult>;
  readonly #options: Required<QueueOptions>;
  readonly #waiting = new Set<string>();
  readonly #order: string[] = [];
  readonly #inFlight = new Set<string>();
  /** Keys added while in flight: handled again when their run ends. */
  readonly #dirty = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #timers = new Map<string, { timer: NodeJS.Timeout; due: number }>();
  readonly #onError: (key: string, error: unknown, retryInMs: number) => void;
  #workers = 0;
  #stopped = false;
  #idle: (() => void)[] = [];

  constructor(
    handle: (key: string) => Promise<HandlerResult>,
    options: QueueOptions,
    onError: (key: string, error: unknown, retryInMs: number) => void,
  ) {
    this.#handle = handle;
    this.#options = { baseRetryMs: 200, maxRetryMs: 60_000, ...options };
    this.#onError = onError;
  }

  get depth(): number {
    return this.#waiting.size;
  }

  add(key: string): void {
    if (this.#stopped) return;
    if (this.#inFlight.has(key)) {
      this.#dirty.add(key);
      return;
    }
    if (this.#waiting.has(key)) return;
    this.#waiting.add(key);
    this.#order.push(key);
    this.#pump();
  }

  /** Adds the key after a delay (of two pending delays for a key, the earlier wins). */
  addAfter(key: string, delayMs: number): void {
    if (this.#stopped) return;
    const due = Date.now() + delayMs;
    const existing = this.#timers.get(key);
    if (existing && existing.due <= due) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.#timers.set(key, { timer, due });
  }

  /** Stops taking work; resolves when the keys in flight are done. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#waiting.clear();
    this.#order.length = 0;
    if (this.#workers > 0) await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  #pump(): void {
    while (!this.#stopped && this.#workers < this.#options.concurrency && this.#order.length > 0) {
      const key = this.#order.shift()!;
      this.#waiting.delete(key);
      this.#inFlight.add(key);
      this.#workers += 1;
      void this.#run(key);
    }
  }

  async #run(key: string): Promise<void> {
    try {
      const result = await this.#handle(key);
      this.#failures.delete(key);
      if (result?.requeueAfterMs !== undefined) this.addAfter(key, Math.max(0, result.requeueAfterMs));
    } catch (error) {
      const failures = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, failures);
      const delay = Math.min(this.#options.maxRetryMs, this.#options.baseRetryMs * 2 ** (failures - 1));
      this.#onError(key, error, delay);
      this.addAfter(key, delay);
    } finally {
      this.#inFlight.delete(key);
      this.#workers -= 1;
      if (this.#dirty.delete(key)) this.add(key);
      if (this.#workers === 0 && this.#stopped) for (const resolve of this.#idle.splice(0)) resolve();
      this.#pump();
    }
  }
}
