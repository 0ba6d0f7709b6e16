import type { LedgerReason } from '../contracts/index.ts';
import type { Sql } from '../db/sql.ts';

export { LEDGER_REASONS, type LedgerReason } from '../contracts/index.ts';

export interface Balances {
  creditsCents: number;
  freeCreditsCents: number;
}

export interface LedgerEntry extends Balances {
  id: string;
  creditsDeltaCents: number;
  freeCreditsDeltaCents: number;
  reason: LedgerReason;
  reference: string | null;
}

interface EntryRow {
  id: string;
  credits_delta_cents: string;
  free_credits_delta_cents: string;
  credits_after_cents: string;
  free_credits_after_cents: string;
  reason: LedgerReason;
  reference: string | null;
}

const toEntry = (row: EntryRow): LedgerEntry => ({
  id: row.id,
  creditsDeltaCents: Number(row.credits_delta_cents),
  freeCreditsDeltaCents: Number(row.free_credits_delta_cents),
  creditsCents: Number(row.credits_after_cents),
  freeCreditsCents: Number(row.free_credits_after_cents),
  reason: row.reason,
  reference: row.reference,
});

function assertAmount(cents: number): void {
  if (!Number.isSafeInteger(cents) || cents <= 0)
    throw new RangeError(`amount must be a positive integer of hundredths, got ${cents}`);
}

/**
 * Moves credits. Each call is one SQL statement that locks the user's row, changes the
 * balance and writes its ledger row together, so concurrent calls are ordered and a
 * balance can never go negative (the statement only matches when the money is there,
 * and the table constraints would refuse it anyway).
 */
export class Ledger {
  /** Adds credits (`credits`) or free credits (`free`); answers the ledger row. */
  static async grant(
    sql: Sql,
    userId: string,
    amount: { creditsCents?: number; freeCreditsCents?: number },
    reason: LedgerReason,
    reference: string | null = null,
  ): Promise<LedgerEntry> {
    const credits = amount.creditsCents ?? 0;
    const free = amount.freeCreditsCents ?? 0;
    if (credits) assertAmount(credits);
    if (free) assertAmount(free);
    if (!credits && !free) throw new RangeError('nothing to grant');
    const row = await sql.one<EntryRow>(
      `with moved as (
         update users set credits_cents = credits_cents + ?, free_credits_cents = free_credits_cents + ?, updated_at = now()
          where id = ?
          returning id, credits_cents, free_credits_cents)
       insert into credit_ledger
         (user_id, credits_delta_cents, free_credits_delta_cents, credits_after_cents, free_credits_after_cents, reason, reference)
       select id, ?, ?, credits_cents, free_credits_cents, ?, ? from moved
       returning *`,
      [credits, free, userId, credits, free, reason, reference],
    );
    if (!row) throw new Error(`no user ${userId}`);
    return toEntry(row);
  }

  /**
   * Takes `amountCents`, free credits first. Answers the ledger row, or null (and changes
   * nothing) when the user cannot pay.
   */
  static async charge(
    sql: Sql,
    userId: string,
    amountCents: number,
    reason: LedgerReason,
    reference: string | null = null,
  ): Promise<LedgerEntry | null> {
    assertAmount(amountCents);
    const row = await sql.one<EntryRow>(
      `with before as (
         select id, credits_cents as c, free_credits_cents as f from users where id = ? for update),
       moved as (
         update users u set free_credits_cents = b.f - least(b.f, ?),
                            credits_cents = b.c - (? - least(b.f, ?)),
                            updated_at = now()
           from before b
          where u.id = b.id and b.f + b.c >= ?
          returning u.id, u.credits_cents, u.free_credits_cents, least(b.f, ?) as free_spent)
       insert into credit_ledger
         (user_id, credits_delta_cents, free_credits_delta_cents, credits_after_cents, free_credits_after_cents, reason, reference)
       select id, -(? - free_spent), -free_spent, credits_cents, free_credits_cents, ?, ? from moved
       returning *`,
      [
        userId,
        amountCents,
        amountCents,
        amountCents,
        amountCents,
        amountCents,
        amountCents,
        reason,
        reference,
      ],
    );
    return row ? toEntry(row) : null;
  }

  /**
   * Takes back up to `maxCents` of paid credits (never free credits: a refund or a chargeback reverses what
   * was bought, not what was given), as much as the user still has. One statement like the others; answers
   * the ledger row, or null (and changes nothing) when the user has no paid credits left.
   */
  static async reclaim(
    sql: Sql,
    userId: string,
    maxCents: number,
    reason: LedgerReason,
    reference: string | null = null,
  ): Promise<LedgerEntry | null> {
    assertAmount(maxCents);
    const row = await sql.one<EntryRow>(
      `with before as (
         select id, credits_cents as c from users where id = ? for update),
       moved as (
         update users u set credits_cents = b.c - least(b.c, ?), updated_at = now()
           from before b
          where u.id = b.id and b.c > 0
          returning u.id, u.credits_cents, u.free_credits_cents, least(b.c, ?) as taken)
       insert into credit_ledger
         (user_id, credits_delta_cents, free_credits_delta_cents, credits_after_cents, free_credits_after_cents, reason, reference)
       select id, -taken, 0, credits_cents, free_credits_cents, ?, ? from moved
       returning *`,
      [userId, maxCents, maxCents, reason, reference],
    );
    return row ? toEntry(row) : null;
  }

  static async balances(sql: Sql, userId: string): Promise<Balances | null> {
    const row = await sql.one<{ credits_cents: string; free_credits_cents: string }>(
      'select credits_cents, free_credits_cents from users where id = ?',
      [userId],
    );
    return row
      ? { creditsCents: Number(row.credits_cents), freeCreditsCents: Number(row.free_credits_cents) }
      : null;
  }
}
