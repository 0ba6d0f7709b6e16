import { ATTACK_MESSAGES, type Attack } from '../contracts/index.ts';
import type { Logger } from '../logger.ts';
import type { Referee } from './host.ts';

/** The part of the attack service the referee serves (attacks/service.ts). */
export interface JudgedAttacks {
  readonly events: {
    on(event: 'attackStarted', listener: (attack: Attack) => void): unknown;
    on(event: 'attackEnded', listener: (ended: { attackId: string }) => void): unknown;
  };
  /** Why attacks are refused now (the referee cannot watch), or null. */
  refereeProblem: string | null;
  /** Waits for the referee's verdicts so far (settlement calls it). */
  refereeSettled: (() => Promise<void>) | null;
}

/** The first wait before starting a failed referee again, doubled each time up to `maxRetryMs`. */
const RETRY_MS = 5000;
const MAX_RETRY_MS = 60_000;

/**
 * Keeps the runtime's referee serving the attacks: starts it, and when it cannot start (its tracer failing to
 * attach on a busy host, say) starts it again with growing waits instead of leaving attacks off until the
 * API restarts. While it is not running, attacks are refused with the reason (`refereeProblem`).
 */
export class RefereeKeeper {
  readonly #referee: Referee;
  readonly #attacks: JudgedAttacks;
  readonly #log: Logger;
  readonly #maxRetryMs: number;
  #retryMs: number;
  #timer: NodeJS.Timeout | null = null;
  #running = false;
  #closed = false;
  #attempt: Promise<void> = Promise.resolve();

  constructor(
    referee: Referee,
    attacks: JudgedAttacks,
    options: { logger: Logger; retryMs?: number; maxRetryMs?: number },
  ) {
    this.#referee = referee;
    this.#attacks = attacks;
    this.#log = options.logger;
    this.#retryMs = options.retryMs ?? RETRY_MS;
    this.#maxRetryMs = options.maxRetryMs ?? MAX_RETRY_MS;
  }

  /** Whether the referee runs. */
  get running(): boolean {
    return this.#running;
  }

  /** The first start, awaited by the API's start; a failure leaves retries scheduled, not thrown. */
  start(): Promise<void> {
    this.#attempt = this.#try();
    return this.#attempt;
  }

  async #try(): Promise<void> {
    try {
      await this.#referee.start();
    } catch (err) {
      if (this.#closed) return;
      this.#attacks.refereeProblem = ATTACK_MESSAGES.noReferee;
      this.#log.error(
        { err, retryInMs: this.#retryMs },
        'The referee could not start: attacks are off until it does',
      );
      this.#timer = setTimeout(() => {
        this.#timer = null;
        this.#attempt = this.#try();
      }, this.#retryMs);
      this.#timer.unref();
      this.#retryMs = Math.min(this.#retryMs * 2, this.#maxRetryMs);
      return;
    }
    if (this.#closed) {
      await this.#referee.close();
      return;
    }
    this.#running = true;
    const referee = this.#referee;
    this.#attacks.events.on('attackStarted', (attack) => void referee.watch(attack));
    this.#attacks.events.on('attackEnded', ({ attackId }) => referee.unwatch(attackId));
    this.#attacks.refereeSettled = () => referee.settled();
    if (this.#attacks.refereeProblem) this.#log.info('The referee runs: attacks are on');
    this.#attacks.refereeProblem = null;
  }

  /** Stops retrying and closes the referee if it runs. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#attempt;
    if (this.#running) await this.#referee.close();
  }
}
