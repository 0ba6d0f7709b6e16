import argon2 from 'argon2';
import pLimit from 'p-limit';
import { HttpError } from '../http/errors.ts';

export interface PasswordHasherOptions {
  memoryKiB: number;
  timeCost: number;
  /** Hashes computed at once; more wait their turn (argon2 is CPU- and memory-bound). */
  concurrency: number;
  /** Hashes allowed to wait; beyond that calls are refused at once (503) instead of queueing without end. */
  maxQueue?: number;
}

/** argon2id password hashing with a cap on concurrent work. */
export class PasswordHasher {
  readonly #options: PasswordHasherOptions;
  readonly #limit: ReturnType<typeof pLimit>;
  #dummyHash: Promise<string> | undefined;

  constructor(options: PasswordHasherOptions) {
    this.#options = options;
    this.#limit = pLimit(options.concurrency);
  }

  hash(password: string): Promise<string> {
    this.#assertCapacity();
    return this.#limit(() =>
      argon2.hash(password, {
        type: argon2.argon2id,
        memoryCost: this.#options.memoryKiB,
        timeCost: this.#options.timeCost,
        parallelism: 1,
      }),
    );
  }

  /**
   * Checks a password against a stored hash. Without a hash (no such account, or a
   * social-only one) it verifies against a dummy hash anyway, so that the answer takes
   * as long and reveals nothing.
   */
  async verify(hash: string | null | undefined, password: string): Promise<boolean> {
    this.#assertCapacity();
    const target = hash ?? (await (this.#dummyHash ??= this.hash('not-a-real-password-0')));
    const ok = await this.#limit(() => argon2.verify(target, password).catch(() => false));
    return ok && !!hash;
  }

  #assertCapacity(): void {
    if (this.#limit.pendingCount >= (this.#options.maxQueue ?? 32)) {
      throw new HttpError(503, 'The grid is busy. Try again in a few seconds.', {
        headers: { 'Retry-After': '5' },
      });
    }
  }
}
