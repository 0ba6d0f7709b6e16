import { createHash } from 'node:crypto';
import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { MAIL_COOLDOWN_SECONDS } from '../contracts/index.ts';
import { tooManyRequests } from '../http/errors.ts';

/**
 * Throttles for the unauthenticated calls and per-user limits of the authenticated ones, kept in
 * PostgreSQL (shared by every API replica). Each `consume` costs a point; when none are left the
 * call answers 429 with Retry-After.
 */
export class Throttle {
  readonly #limiters: Record<ThrottleName, RateLimiterPostgres>;
  readonly #limits: Record<ThrottleName, ThrottleLimit>;

  constructor(pool: pg.Pool, limits: Partial<Record<ThrottleName, ThrottleLimit>> = {}) {
    this.#limits = Object.fromEntries(
      THROTTLES.map((name) => [name, { ...DEFAULT_LIMITS[name], ...limits[name] }]),
    ) as Record<ThrottleName, ThrottleLimit>;
    const make = (name: ThrottleName) => {
      const limit = this.#limits[name];
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

  /**
   * Takes a point from each (limiter, key) pair in order and stops at the first one that
   * is exhausted, with a 429 HttpError carrying Retry-After.
   */
  async consume(...checks: [ThrottleName, string][]): Promise<void> {
    for (const [name, key] of checks) {
      try {
        await this.#limiters[name].consume(throttleKey(key));
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        const seconds = err.msBeforeNext / 1000;
        throw tooManyRequests(seconds, MESSAGES[name]?.(seconds, this.#limits[name]));
      }
    }
  }

  /** Throws the 429 if a key is blocked right now, without taking a point. */
  async assertOpen(name: ThrottleName, key: string): Promise<void> {
    const state = await this.#limiters[name].get(throttleKey(key));
    if (state && state.remainingPoints <= 0 && state.msBeforeNext > 0) {
      const seconds = state.msBeforeNext / 1000;
      throw tooManyRequests(seconds, MESSAGES[name]?.(seconds, this.#limits[name]));
    }
  }

  /** Takes a point and answers whether the key still had one (for work that may be skipped quietly). */
  async tryConsume(name: ThrottleName, key: string): Promise<boolean> {
    try {
      await this.#limiters[name].consume(throttleKey(key));
      return true;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      return false;
    }
  }

  /**
   * Gives back the point an attempt took, once it turned out not to count (a gift token that was redeemed:
   * only failures count against guessing).
   */
  async refund(name: ThrottleName, key: string): Promise<void> {
    await this.#limiters[name].reward(throttleKey(key), 1);
  }

  /** Clears a key (a successful login resets the failures counted against an account). */
  async reset(name: ThrottleName, key: string): Promise<void> {
    await this.#limiters[name].delete(throttleKey(key));
  }
}

/**
 * Keys are hashed: the table holds no email addresses, and a 254-character address fits
 * the key column like any other.
 */
function throttleKey(key: string): string {
  return createHash('sha256').update(key.toLowerCase()).digest('base64url');
}

/**
 * The address a throttle counts against: IPv4 as is (also when written as IPv4-mapped
 * IPv6), IPv6 by its /64, which is what one customer line usually gets.
 */
export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const [head = '', tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::')
    ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * The mailbox an address reaches, as a throttle counts it: letter case and a `+tag` (which most providers
 * deliver to the same mailbox) do not make another one.
 */
export function mailboxKey(email: string): string {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at).replace(/\+.*$/, '');
  return `${local}${email.slice(at)}`.toLowerCase();
}

export interface ThrottleLimit {
  points: number;
  durationSeconds: number;
  blockSeconds: number;
}

const THROTTLES = [
  'loginIp',
  'loginAccount',
  'signupIp',
  'mailCooldown',
  'mailIp',
  'mailAccount',
  'tokenIp',
  'noticeAccount',
  'userCalls',
  'boxCooldown',
  'boxChanges',
  'checkout',
  'giftUser',
  'giftIp',
  'giftRedeems',
  'securityReportIp',
  'securityAck',
  'contactIp',
  'contactSender',
  'resumeUploadIp',
  'resumeUploads',
  'applicationIp',
  'applicationSender',
] as const;
export type ThrottleName = (typeof THROTTLES)[number];

const DEFAULT_LIMITS: Record<ThrottleName, ThrottleLimit> = {
  // Login attempts from one address: generous for shared NATs, fatal for password spraying.
  loginIp: { points: 30, durationSeconds: 15 * 60, blockSeconds: 15 * 60 },
  // Failed logins against one account, from anywhere; reset by a successful login.
  loginAccount: { points: 10, durationSeconds: 60 * 60, blockSeconds: 15 * 60 },
  signupIp: { points: 10, durationSeconds: 60 * 60, blockSeconds: 60 * 60 },
  // One mail of a kind to one address a minute: a second click on Resend sends nothing (the portal counts down).
  mailCooldown: { points: 1, durationSeconds: MAIL_COOLDOWN_SECONDS, blockSeconds: 0 },
  // Calls that send mail (forgot password, resend verification).
  mailIp: { points: 10, durationSeconds: 60 * 60, blockSeconds: 60 * 60 },
  mailAccount: { points: 3, durationSeconds: 15 * 60, blockSeconds: 15 * 60 },
  // Token redemptions (reset password, social code exchange). Refresh is not throttled: its
  // token is a 256-bit secret, and a throttled refresh would sign out everyone behind a NAT.
  tokenIp: { points: 60, durationSeconds: 15 * 60, blockSeconds: 15 * 60 },
  // "Someone tried to sign up with your address" notices to one address.
  noticeAccount: { points: 2, durationSeconds: 24 * 60 * 60, blockSeconds: 0 },
  // Mutating REST calls (POST, PUT, PATCH, DELETE) of one signed-in user, from anywhere: a player clicks a
  // few a minute; a script that loops gets 429s.
  userCalls: { points: 120, durationSeconds: 60, blockSeconds: 0 },
  // Creating, deleting, resetting or restoring a box, or taking a snapshot, makes the host prepare, copy or
  // remove a disk: one a quarter minute, twelve an hour.
  boxCooldown: { points: 1, durationSeconds: 15, blockSeconds: 0 },
  boxChanges: { points: 12, durationSeconds: 60 * 60, blockSeconds: 0 },
  // Each checkout writes a purchase and calls the payment provider: a player starts one or two, then pays.
  checkout: { points: 10, durationSeconds: 15 * 60, blockSeconds: 0 },
  // Gift tokens (credits/gifts.ts): every attempt takes a point and a redeemed token gives it back, so these
  // count failures: 5 per player and 20 per address in a quarter hour, then a quarter hour of 429s. Against
  // 2^60 tokens that is nothing to a guesser, and room for a player's typos.
  giftUser: { points: 5, durationSeconds: 15 * 60, blockSeconds: 15 * 60 },
  giftIp: { points: 20, durationSeconds: 15 * 60, blockSeconds: 15 * 60 },
  // Redemptions of one player, successes included: a stack of gift cards, not a script.
  giftRedeems: { points: 20, durationSeconds: 60 * 60, blockSeconds: 0 },
  // Vulnerability reports (security/reports.ts): each is stored and mailed to the security team, so one address
  // sends 5 an hour; one typed-in reporter address gets 3 acknowledgements a day (then the report is still
  // stored and mailed to staff, only the acknowledgement is skipped).
  securityReportIp: { points: 5, durationSeconds: 60 * 60, blockSeconds: 0 },
  securityAck: { points: 3, durationSeconds: 24 * 60 * 60, blockSeconds: 0 },
  // The contact form (contact/service.ts): a person writes once or twice; each message mails staff and a
  // receipt, so a script gets 429s after 5 an hour from one address, and one typed-in address gets at most
  // 3 receipts a day whoever types it.
  contactIp: { points: 5, durationSeconds: 60 * 60, blockSeconds: 0 },
  contactSender: { points: 3, durationSeconds: 24 * 60 * 60, blockSeconds: 0 },
  // Careers (careers/service.ts): each upload stores up to 5 MB for an hour and each application mails staff and
  // the applicant. A person uploads a resume or two and applies to a few jobs; a script from one address gets
  // 429s after 10 uploads and 5 applications an hour, one typed-in address gets 5 acknowledgements a day, and
  // all addresses together store at most 300 uploads an hour (1.5 GB at worst, swept an hour later).
  resumeUploadIp: { points: 10, durationSeconds: 60 * 60, blockSeconds: 0 },
  resumeUploads: { points: 300, durationSeconds: 60 * 60, blockSeconds: 0 },
  applicationIp: { points: 5, durationSeconds: 60 * 60, blockSeconds: 0 },
  applicationSender: { points: 5, durationSeconds: 24 * 60 * 60, blockSeconds: 0 },
};

const waitFor = (seconds: number) => {
  const s = Math.max(1, Math.ceil(seconds));
  return s < 120 ? `${s} second${s === 1 ? '' : 's'}` : `${Math.ceil(s / 60)} minutes`;
};

/** Sentences for limits a player can hit by hand (the rest say 'Too many requests. Try again later.'). */
const MESSAGES: Partial<Record<ThrottleName, (seconds: number, limit: ThrottleLimit) => string>> = {
  // Says nothing of whether a link went out: the address may have no account.
  mailCooldown: (s) => `A link was requested for this address moments ago. Try again in ${waitFor(s)}.`,
  boxCooldown: (s, limit) =>
    `A box can be created, deleted, reset, snapshotted or restored once every ${waitFor(limit.durationSeconds)}. Try again in ${waitFor(s)}.`,
  boxChanges: (s) =>
    `Too many box changes (creations, deletions, resets, snapshots, restores) in the last hour. Try again in ${waitFor(s)}.`,
  checkout: (s) => `Too many checkouts started. Try again in ${waitFor(s)}.`,
  giftUser: (s) => `Too many gift token attempts. Try again in ${waitFor(s)}.`,
  giftIp: (s) => `Too many gift token attempts from your network. Try again in ${waitFor(s)}.`,
  giftRedeems: (s) => `Too many gift tokens redeemed in the last hour. Try again in ${waitFor(s)}.`,
  securityReportIp: (s) =>
    `Too many vulnerability reports sent from your network. Try again in ${waitFor(s)}.`,
  contactIp: (s) => `Too many messages sent from your network. Try again in ${waitFor(s)}.`,
  contactSender: (s) => `Too many messages from this email address today. Try again in ${waitFor(s)}.`,
  resumeUploadIp: (s) => `Too many resumes uploaded from your network. Try again in ${waitFor(s)}.`,
  resumeUploads: (s) => `Too many resumes are being uploaded right now. Try again in ${waitFor(s)}.`,
  applicationIp: (s) => `Too many applications sent from your network. Try again in ${waitFor(s)}.`,
  applicationSender: (s) =>
    `Too many applications from this email address today. Try again in ${waitFor(s)}.`,
};
