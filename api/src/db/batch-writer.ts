/** An item's result, or the error that item alone gets (the others of its batch are unaffected). */
export type BatchResult<Out> = { ok: true; value: Out } | { ok: false; error: unknown };

interface Waiting<In, Out> {
  item: In;
  resolve: (value: Out) => void;
  reject: (error: unknown) => void;
}

/**
 * Resolves after the event loop's next I/O phase: an immediate set from an immediate runs in the next
 * turn, after the loop has read what arrived meanwhile (a batch may have been handled inside an I/O
 * callback, before this turn's reads). Without I/O waiting the loop does not block on it.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * Handles many items with one statement, one batch at a time (group commit): items added while a batch is
 * being handled wait and go together in the next. Before taking a batch the writer lets the event loop
 * read its I/O once more, so everything that arrived meanwhile joins it: a quiet moment costs a turn of
 * the loop, and under load each round carries everything that came during the last one, so
 * throughput follows the load rather than the connection pool.
 */
export class BatchWriter<In, Out> {
  readonly #write: (items: In[]) => Promise<BatchResult<Out>[]>;
  readonly #maxBatch: number;
  #queue: Waiting<In, Out>[] = [];
  #writing = false;

  /**
   * `write` handles a batch and answers one result per item, in their order; if it throws, every item of the
   * batch fails. The next batch waits until it is done.
   */
  constructor(write: (items: In[]) => Promise<BatchResult<Out>[]>, maxBatch = 500) {
    this.#write = write;
    this.#maxBatch = maxBatch;
  }

  add(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    if (this.#writing) return;
    this.#writing = true;
    try {
      while (this.#queue.length > 0) {
        await nextTurn();
        const batch = this.#queue.splice(0, this.#maxBatch);
        let results: BatchResult<Out>[];
        try {
          results = await this.#write(batch.map((waiting) => waiting.item));
        } catch (error) {
          for (const waiting of batch) waiting.reject(error);
          continue;
        }
        batch.forEach((waiting, i) => {
          const result = results[i];
          if (!result) waiting.reject(new Error('The batch write answered fewer results than items'));
          else if (result.ok) waiting.resolve(result.value);
          else waiting.reject(result.error);
        });
      }
    } finally {
      this.#writing = false;
    }
  }
}
