import type { EntityManager } from '@mikro-orm/postgresql';
import {
  CREDITS_PER_USD,
  type LedgerEntryView,
  type LedgerPage,
  type LedgerReason,
} from '../contracts/index.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';

/**
 * A line of the statement is one ledger row, except box time: charged a row a minute, its minutes are read as
 * one line, 'Box time (12 min)', while nothing else comes between them. A player has one box, so the minutes
 * of a session follow one another, and a session begins at minute 1 (references `box:<id>:<session>:<minute>`):
 * a box-time row continues the line of the row just newer than it (`w`: the player's rows, newest first) when
 * that one is box time too, and not a first minute.
 */
const CONTINUES_NEWER = `coalesce(reason = 'BOX_TIME' and lag(reason) over w = 'BOX_TIME'
  and lag(reference) over w not like '%:1', false)`;

/**
 * The player's rows, newest first, each marked whether it is the newest of its line. Read through
 * credit_ledger_user_idx (user_id, id) backwards, in order, so a page stops reading where it ends.
 */
const MARKED = `select id, not ${CONTINUES_NEWER} as head from credit_ledger where user_id = ?
  window w as (order by id desc)`;

/**
 * How many lines: one for each row that is not box time and for each first minute (credit_ledger_lines_idx
 * holds just those), and one for each run of minutes a row interrupted (that row's newer neighbour is a later
 * minute). It reads the player's other rows and sessions, not every minute of box time.
 */
const COUNT_LINES = `select (count(*) + count(*) filter (where m.reason <> 'BOX_TIME' and (
    select n.reason = 'BOX_TIME' and n.reference not like '%:1' from credit_ledger n
     where n.user_id = m.user_id and n.id > m.id order by n.id limit 1)))::int as n
  from credit_ledger m where m.user_id = ? and (m.reason <> 'BOX_TIME' or m.reference like '%:1')`;

interface EntryRow {
  id: string;
  created_at: Date | string;
  reason: LedgerReason;
  reference: string | null;
  credits_after_cents: string;
  free_credits_after_cents: string;
  rows: number;
  credits_delta_cents: string;
  free_credits_delta_cents: string;
  target_handle: string | null;
}

/**
 * The player's statement, 'where my credits went' (docs/credits.md): their ledger, newest first, in entries
 * that say what happened in words, with the change and the balances after it.
 */
export class CreditStatement {
  readonly #orm: Orm;

  constructor(orm: Orm) {
    this.#orm = orm;
  }

  /** Page `page` (from 1) of `userId`'s entries, `limit` a page, and how many entries there are. */
  async page(userId: string, { page, limit }: { page: number; limit: number }): Promise<LedgerPage> {
    const sql = new Sql(this.#orm.em.fork() as EntityManager);
    const [total, heads] = await Promise.all([
      sql.one<{ n: number }>(COUNT_LINES, [userId]),
      // One more than the page: where its last entry ends.
      sql.all<{ id: string }>(`select id from (${MARKED}) m where head order by id desc limit ? offset ?`, [
        userId,
        limit + 1,
        (page - 1) * limit,
      ]),
    ]);
    const bounds = heads
      .slice(0, limit)
      .map((head, i) => [head.id, heads[i + 1]?.id ?? '0'] as [upper: string, lower: string]);
    if (bounds.length === 0) return { data: [], total: total?.n ?? 0 };
    const rows = await sql.all<EntryRow>(
      `with bounds as (
         select (value->>0)::bigint as upper_id, (value->>1)::bigint as lower_id from jsonb_array_elements(?::jsonb))
       select h.id, h.created_at, h.reason, h.reference, h.credits_after_cents, h.free_credits_after_cents,
              s.rows, s.credits_delta_cents, s.free_credits_delta_cents, target.handle as target_handle
         from bounds b
         join credit_ledger h on h.id = b.upper_id and h.user_id = ?
         cross join lateral (
           select count(*)::int as rows, sum(l.credits_delta_cents) as credits_delta_cents,
                  sum(l.free_credits_delta_cents) as free_credits_delta_cents
             from credit_ledger l where l.user_id = h.user_id and l.id > b.lower_id and l.id <= b.upper_id) s
         -- (No question marks in this text: they are placeholders.)
         left join attacks a on a.id = case when h.reference ~ '^(refund:|)attack:[0-9a-f-]{36}$'
                                            then regexp_replace(h.reference, '^(refund:|)attack:', '')::uuid end
         left join users target on target.id = a.target_id
        order by h.id desc`,
      [JSON.stringify(bounds), userId],
    );
    return { data: rows.map(toEntry), total: total?.n ?? 0 };
  }
}

const credits = (cents: string | number) => Number(cents) / 100;

function toEntry(row: EntryRow): LedgerEntryView {
  const creditsDeltaCents = Number(row.credits_delta_cents);
  const freeCreditsDeltaCents = Number(row.free_credits_delta_cents);
  return {
    id: row.id,
    createdAt: new Date(row.created_at).toISOString(),
    reason: row.reason,
    description: describeLine(row, creditsDeltaCents + freeCreditsDeltaCents),
    creditsDelta: credits(creditsDeltaCents),
    freeCreditsDelta: credits(freeCreditsDeltaCents),
    credits: credits(row.credits_after_cents),
    freeCredits: credits(row.free_credits_after_cents),
  };
}

/** What a player reads for an entry. */
function describeLine(
  row: Pick<EntryRow, 'reason' | 'reference' | 'rows' | 'target_handle'>,
  deltaCents: number,
): string {
  switch (row.reason) {
    case 'SIGNUP_GIFT':
      return 'Welcome gift';
    case 'BOX_TIME':
      return `Box time (${duration(row.rows)})`;
    case 'ATTACK':
      return row.target_handle ? `Attack on ${row.target_handle}` : 'Attack';
    case 'PURCHASE':
      return `Purchase ${dollars(deltaCents)}`;
    case 'GIFT_TOKEN':
      return 'Gift token';
    case 'REFUND':
      return 'Refund';
    case 'CHARGEBACK':
      return 'Chargeback';
    case 'ADJUSTMENT':
      // Given back when an attack could not start (attacks/service.ts).
      if (row.reference?.startsWith('refund:attack:'))
        return row.target_handle ? `Attack on ${row.target_handle} refunded` : 'Attack refunded';
      return 'Adjustment';
  }
}

/** '12 min', '1 h', '2 h 5 min'. */
function duration(minutes: number): string {
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `${hours} h ${rest} min` : `${hours} h`;
}

/** What a purchase of these credits cost: '$20', '$12.50' (100 credits a dollar). */
function dollars(creditsCents: number): string {
  const cents = Math.round(creditsCents / CREDITS_PER_USD);
  return cents % 100 === 0 ? `$${cents / 100}` : `$${(cents / 100).toFixed(2)}`;
}
