import { createHash, randomInt } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ACCOUNT_BANNED, COMMERCE_MESSAGES } from '../contracts/index.ts';
import { clientKey, type Throttle } from '../auth/throttle.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import { badRequest, forbidden, notFound } from '../http/errors.ts';
import type { Logger } from '../logger.ts';
import type { BalanceEvents } from './balance-events.ts';
import { Ledger } from './ledger.ts';

/**
 * Crockford's base32: digits and letters without I, L, O and U, so nothing on a card reads as something
 * else (O is 0, I and L are 1 when a player types them).
 */
export const GIFT_TOKEN_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** 12 symbols of 5 bits: 60 bits from the operating system's CSPRNG. */
export const GIFT_TOKEN_SYMBOLS = 12;
/** The most one token may grant, in credits: a purchase's maximum (1000 USD). */
export const GIFT_MAX_CREDITS = 100_000;

/** A new token, `XXXX-XXXX-XXXX`. Shown once, to the staff member who minted it; only its hash is kept. */
export function newGiftToken(): string {
  let symbols = '';
  for (let i = 0; i < GIFT_TOKEN_SYMBOLS; i++) symbols += GIFT_TOKEN_ALPHABET[randomInt(32)];
  return formatGiftToken(symbols);
}

const formatGiftToken = (symbols: string) => symbols.match(/.{4}/g)!.join('-');

/**
 * The token a player meant, in canonical form (`XXXX-XXXX-XXXX`), or null when it cannot be one: letter case,
 * spaces and dashes (also the typographic ones a copy may bring) do not matter; O reads as 0, I and L as 1.
 */
export function normaliseGiftToken(input: string): string | null {
  const symbols = input
    .toUpperCase()
    .replace(/[\s\u2010-\u2015\u2212-]/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
  if (symbols.length !== GIFT_TOKEN_SYMBOLS) return null;
  for (const symbol of symbols) if (!GIFT_TOKEN_ALPHABET.includes(symbol)) return null;
  return formatGiftToken(symbols);
}

/** What the database keeps of a token: the SHA-256 of its canonical form. */
export function giftTokenHash(canonical: string): Buffer {
  return createHash('sha256').update(canonical, 'utf8').digest();
}

/**
 * A label for staff listings (`gift_tokens.hint`): four symbols drawn on their own, so it tells tokens apart
 * without giving away any of a token's 60 bits to someone holding a copy of the table.
 */
export function newGiftLabel(): string {
  let symbols = '';
  for (let i = 0; i < 4; i++) symbols += GIFT_TOKEN_ALPHABET[randomInt(32)];
  return symbols;
}

/** The reference of a GIFT_TOKEN ledger row. */
export const giftReference = (giftId: string) => `gift:${giftId}`;

export interface GiftServiceOptions {
  orm: Orm;
  throttle: Throttle;
  logger: Logger;
  /** Where the player's pages learn of the new balance. */
  balances?: BalanceEvents;
}

/**
 * Players redeem gift tokens that staff minted (staff/gifts.ts): each at most once, as free credits
 * (docs/credits.md, "Gift tokens").
 */
export class GiftService {
  readonly #o: GiftServiceOptions;
  readonly #log: Logger;

  constructor(options: GiftServiceOptions) {
    this.#o = options;
    this.#log = options.logger.child({ component: 'gifts' });
  }

  /**
   * Grants the token's free credits to `userId` and answers how many credits that was. A token that is
   * unknown, expired, already redeemed or not a token at all gets one answer (400, the same message), and
   * counts against the player and their address; past the throttles, 429 with Retry-After.
   */
  async redeem(userId: string, ip: string, token: string): Promise<{ creditsGranted: number }> {
    const address = clientKey(ip);
    // Every attempt takes its point before anything is looked up, so parallel guesses are counted too.
    await this.#o.throttle.consume(['giftUser', userId], ['giftIp', address], ['giftRedeems', userId]);
    const canonical = normaliseGiftToken(token);
    if (!canonical) throw badRequest(COMMERCE_MESSAGES.redeemInvalid, 'GIFT_INVALID');
    const sql = new Sql(this.#o.orm.em.fork() as EntityManager);
    const granted = await sql.transaction(async (tx) => {
      // The player's row first (the grant locks it anyway): a ban committed meanwhile wins.
      const user = await tx.one<{ banned: boolean }>(
        'select banned_at is not null as banned from users where id = ? for update',
        [userId],
      );
      if (!user) throw notFound('User not found');
      if (user.banned) throw forbidden(ACCOUNT_BANNED, 'ACCOUNT_BANNED');
      // One statement decides: of any number of concurrent redemptions, one matches the row; the others
      // wait for it and then find it redeemed.
      const gift = await tx.one<{ id: string; free_credits_cents: string }>(
        `update gift_tokens set redeemed_by = ?, redeemed_at = now()
          where token_hash = ? and redeemed_at is null and (expires_at is null or expires_at > now())
          returning id, free_credits_cents`,
        [userId, giftTokenHash(canonical)],
      );
      if (!gift) return null;
      const entry = await Ledger.grant(
        tx,
        userId,
        { freeCreditsCents: Number(gift.free_credits_cents) },
        'GIFT_TOKEN',
        giftReference(gift.id),
      );
      return { giftId: gift.id, entry };
    });
    if (!granted) throw badRequest(COMMERCE_MESSAGES.redeemInvalid, 'GIFT_INVALID');
    this.#log.info({ userId, gift: granted.giftId }, 'Gift token redeemed');
    // A redeemed token is no guess: its points go back (the hourly count of redemptions keeps its own).
    // The credits are the player's whatever happens here, so a failure is logged, not answered.
    await Promise.all([
      this.#o.throttle.refund('giftUser', userId),
      this.#o.throttle.refund('giftIp', address),
    ]).catch((err: unknown) => this.#log.error({ err, userId }, 'Could not give back gift throttle points'));
    this.#o.balances?.publish(userId, granted.entry);
    return { creditsGranted: granted.entry.freeCreditsDeltaCents / 100 };
  }
}
