import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { tooManyRequests } from '../http/errors.ts';

/**
 * Throttles for the unauthenticated calls, kept in PostgreSQL (shared by every API
 * replica). Each `consume` costs a point; when none are left the call answers 429 with
 * Retry-After.
 */
export class Throttle {
  readonly #limiters: Record<ThrottleName, RateLimiterPostgres>;

  constructor(pool: pg.Pool, limits: Partial<Record<ThrottleName, ThrottleLimit>> = {}) {
    const make = (name: ThrottleName) => {
      const limit = { ...DEFAULT_LIMITS[name], ...limits[name] };
      return new RateLimiterPostgres({
        storeClient: pool,
        storeType: 'pool',
        tableName: 'rate_limits',
        tableCreated: true,
        clearExpiredByTimeout: false,
        keyPrefix: name,
        points: limit.points,
        duration: limit.durationSeconds,
        blockDuration: limit.blockSeconds,
      });
    };
    this.#limiters = Object.fromEntries(THROTTLES.map((name) => [name, make(name)])) as Record<
      ThrottleName,
      RateLimiterPostgres
    >;
  }

  /** Takes a point from each (limiter, key) pair; throws a 429 HttpError if any is exhausted. */
  async consume(...checks: [ThrottleName, string][]): Promise<void> {
    let retryAfterMs = 0;
    for (const [name, key] of checks) {
      try {
        await this.#limiters[name].consume(key.toLowerCase());
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        retryAfterMs = Math.max(retryAfterMs, err.msBeforeNext);
      }
    }
    if (retryAfterMs > 0) throw tooManyRequests(retryAfterMs / 1000);
  }

  /** Clears a key (a successful login resets the failures counted against an account). */
  async reset(name: ThrottleName, key: string): Promise<void> {
    await this.#limiters[name].delete(key.toLowerCase());
  }
}

export interface ThrottleLimit {
  points: number;
  durationSeconds: number;
  blockSeconds: number;
}

const THROTTLES = ['loginIp', 'loginAccount', 'signupIp', 'mailIp', 'mailAccount', 'tokenIp'] as const;
export type ThrottleName = (typeof THROTTLES)[number];

const DEFAULT_LIMITS: Record<ThrottleName, ThrottleLimit> = {
  // Login attempts from one address: generous for shared NATs, fatal for password spraying.
  loginIp: { points: 30, durationSeconds: 15 * 60, blockSeconds: 15 * 60 },
  // Failed logins against one account, from anywhere; reset by a successful login.
  loginAccount: { points: 10, durationSeconds: 60 * 60, blockSeconds: 15 * 60 },
  signupIp: { points: 10, durationSeconds: 60 * 60, blockSeconds: 60 * 60 },
  // Calls that send mail (forgot password, resend verification).
  mailIp: { points: 10, durationSeconds: 60 * 60, blockSeconds: 60 * 60 },
  mailAccount: { points: 3, durationSeconds: 15 * 60, blockSeconds: 15 * 60 },
  // Token redemptions (reset password, social code exchange, refresh).
  tokenIp: { points: 60, durationSeconds: 15 * 60, blockSeconds: 15 * 60 },
};
