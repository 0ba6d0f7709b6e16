import type pg from 'pg';
import { GIFT_MAX_CREDITS, giftTokenHash, newGiftLabel, newGiftToken } from '../credits/gifts.ts';
import { StaffError, inTransaction, logStaffAction } from './cli.ts';

/** At most this many tokens at once (a batch for an event, not a database dump). */
export const GIFT_MINT_MAX_COUNT = 1000;
/** How far ahead a token may expire. */
const MAX_EXPIRY_DAYS = 5 * 366;
const DAY_MS = 24 * 60 * 60 * 1000;

type Db = Pick<pg.ClientBase, 'query'>;

/** A minted token: `token` is shown once and kept nowhere. */
export interface MintedGift {
  id: string;
  token: string;
  hint: string;
}

/** A gift token as staff listings show it (never the token: the platform does not have it). */
export interface GiftListing {
  id: string;
  hint: string;
  creditsCents: number;
  createdAt: string;
  createdBy: string;
  expiresAt: string | null;
  note: string | null;
  redeemedAt: string | null;
  /** The handle of who redeemed it; null when it is not redeemed or their account was deleted. */
  redeemedBy: string | null;
}

/**
 * Mints `count` tokens worth `creditsCents` free credits each, in one transaction with its staff_actions row
 * (which holds the tokens' ids and hints, never the tokens).
 */
export async function mintGifts(
  db: Db,
  input: { creditsCents: number; count: number; expiresAt: Date | null; note: string | null; actor: string },
): Promise<MintedGift[]> {
  return inTransaction(db, async () => {
    const minted: MintedGift[] = [];
    while (minted.length < input.count) {
      const token = newGiftToken();
      const label = newGiftLabel();
      // A token equal to one already minted (one chance in 2^60 a pair) is drawn again, not merged.
      const { rows } = await db.query<{ id: string }>(
        `insert into gift_tokens (token_hash, hint, free_credits_cents, expires_at, note, created_by)
         values ($1, $2, $3, $4, $5, $6) on conflict (token_hash) do nothing returning id`,
        [giftTokenHash(token), label, input.creditsCents, input.expiresAt, input.note, input.actor],
      );
      if (rows[0]) minted.push({ id: rows[0].id, token, hint: label });
    }
    await logStaffAction(db, {
      actor: input.actor,
      action: 'GIFT_MINT',
      target: `${input.count} gift token${input.count === 1 ? '' : 's'}`,
      reason: input.note,
      details: {
        count: input.count,
        creditsEach: input.creditsCents / 100,
        expiresAt: input.expiresAt?.toISOString() ?? null,
        gifts: minted.map(({ id, hint }) => ({ id, hint })),
      },
    });
    return minted;
  });
}

/** The latest tokens, newest first; only those nobody redeemed with `unredeemed`. */
export async function listGifts(
  db: Db,
  options: { limit: number; unredeemed: boolean },
): Promise<GiftListing[]> {
  const { rows } = await db.query<{
    id: string;
    hint: string;
    free_credits_cents: string;
    created_at: Date;
    created_by: string;
    expires_at: Date | null;
    note: string | null;
    redeemed_at: Date | null;
    handle: string | null;
  }>(
    `select g.id, g.hint, g.free_credits_cents, g.created_at, g.created_by, g.expires_at, g.note, g.redeemed_at,
            u.handle
       from gift_tokens g left join users u on u.id = g.redeemed_by
      where not $1 or g.redeemed_at is null
      order by g.created_at desc, g.id desc limit $2`,
    [options.unredeemed, options.limit],
  );
  return rows.map((r) => ({
    id: r.id,
    hint: r.hint,
    creditsCents: Number(r.free_credits_cents),
    createdAt: r.created_at.toISOString(),
    createdBy: r.created_by,
    expiresAt: r.expires_at?.toISOString() ?? null,
    note: r.note,
    redeemedAt: r.redeemed_at?.toISOString() ?? null,
    redeemedBy: r.handle,
  }));
}

/** `--credits`: a positive amount of credits with at most 2 decimals, at most GIFT_MAX_CREDITS; in hundredths. */
export function parseGiftCredits(value: string): number {
  const match = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(value.trim());
  const cents = match ? Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0')) : NaN;
  if (!(cents > 0) || cents > GIFT_MAX_CREDITS * 100)
    throw new StaffError(
      `--credits must be a number of credits above 0 and at most ${GIFT_MAX_CREDITS}, with at most 2 decimals.`,
    );
  return cents;
}

/** `--count`: how many tokens, 1 to GIFT_MINT_MAX_COUNT. */
export function parseGiftCount(value: string | undefined): number {
  if (value === undefined) return 1;
  const count = /^\d{1,5}$/.test(value.trim()) ? Number(value) : NaN;
  if (!(count >= 1 && count <= GIFT_MINT_MAX_COUNT))
    throw new StaffError(`--count must be a whole number from 1 to ${GIFT_MINT_MAX_COUNT}.`);
  return count;
}

/**
 * `--expires`: a time span from now (`12h`, `30d`, `8w`), a date (the token lasts to the end of that day,
 * UTC) or a date and time with its zone (`2026-12-31T18:00:00Z`). In the future, and at most five years ahead.
 */
export function parseGiftExpiry(value: string, now = new Date()): Date {
  const text = value.trim();
  const span = /^(\d{1,5})([hdw])$/i.exec(text);
  let at: Date;
  if (span) {
    const hours = Number(span[1]) * { h: 1, d: 24, w: 24 * 7 }[span[2]!.toLowerCase() as 'h' | 'd' | 'w'];
    at = new Date(now.getTime() + hours * 60 * 60 * 1000);
  } else if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    at = new Date(`${text}T00:00:00.000Z`);
    // Not a real day (2026-02-30) reads back differently.
    if (Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== text) at = new Date(NaN);
    else at = new Date(at.getTime() + DAY_MS);
  } else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/i.test(text)) {
    at = new Date(text);
  } else {
    at = new Date(NaN);
  }
  if (Number.isNaN(at.getTime()))
    throw new StaffError(
      '--expires must be a time span (12h, 30d, 8w), a date (2026-12-31) or a date and time with its zone (2026-12-31T18:00:00Z).',
    );
  if (at.getTime() <= now.getTime()) throw new StaffError('--expires must be in the future.');
  if (at.getTime() > now.getTime() + MAX_EXPIRY_DAYS * DAY_MS)
    throw new StaffError('--expires must be at most five years ahead.');
  return at;
}
