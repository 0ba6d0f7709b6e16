import type { EntityManager } from '@mikro-orm/postgresql';
import { BOX_MESSAGES, TIER_PERKS, type Tier } from '../contracts/index.ts';
import { boxStoppedAlert, lowCreditsAlert } from '../credits/alerts.ts';
import type { BalanceEvents } from '../credits/balance-events.ts';
import { Ledger, type LedgerEntry } from '../credits/ledger.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import type { Logger } from '../logger.ts';
import type { NewNotification, Notifications } from '../notifications/notifications.ts';
import { SELECT_BOX, type BoxRow } from './box-row.ts';

const MINUTE_MS = 60_000;

/** Credits (hundredths) for minute `k` (1-based) of a session at `hourCents` an hour, rounding carried. */
export function minuteCost(hourCents: number, k: number): number {
  return Math.floor((hourCents * k) / 60) - Math.floor((hourCents * (k - 1)) / 60);
}

/** Credits (hundredths) for the first `minutes` minutes of a session (the sum of their minuteCost). */
export function minutesCost(hourCents: number, minutes: number): number {
  return Math.floor((hourCents * minutes) / 60);
}

/**
 * Minutes of a session due at `elapsedMs` into it: every started minute, and never fewer than
 * the minimum charged at each power-on.
 */
export function dueMinutes(elapsedMs: number, minimumMinutes: number): number {
  return Math.max(Math.floor(elapsedMs / MINUTE_MS) + 1, minimumMinutes);
}

const utcDay = (date: Date) => date.toISOString().slice(0, 10);
const balanceOf = (entry: LedgerEntry) => entry.creditsCents + entry.freeCreditsCents;

export interface BoxBillingOptions {
  orm: Orm;
  logger: Logger;
  basicDailyLimitSeconds: number;
  /** Minutes charged at each power-on, up front, however soon the box stops (BOX_MINIMUM_CHARGE_MINUTES). */
  minimumChargeMinutes: number;
  /** Told of the balance after each charge of box time, so the player's sidebar follows. */
  balances?: BalanceEvents;
  /** Where the credit alerts go (credits running low, a box stopped for credits or the daily limit). */
  notifications?: Pick<Notifications, 'send'>;
}

/**
 * Box time (docs/credits.md): each started minute of a running session charged through the ledger, in one
 * transaction holding the box row (so a minute is charged once, whatever runs at once), the BASIC daily
 * limit, the credit alerts, and whether a box can pay for a fight's length.
 */
export class BoxBilling {
  readonly #o: BoxBillingOptions;
  readonly #log: Logger;

  constructor(options: BoxBillingOptions) {
    this.#o = options;
    this.#log = options.logger.child({ component: 'box-billing' });
  }

  #sql(): Sql {
    return new Sql(this.#o.orm.em.fork() as EntityManager);
  }

  /** What a power-on is charged up front: the minimum minutes at the tier's rate. */
  minimumCharge(tier: Tier): number {
    return minutesCost(TIER_PERKS[tier].machineHourCost * 100, this.#o.minimumChargeMinutes);
  }

  /**
   * Counts box time up to `now` and charges every started minute of the running session,
   * in one transaction holding the box row. Stops the box when its owner cannot pay or the
   * BASIC daily limit is used up.
   */
  async account(id: string, now: Date): Promise<{ stopped: boolean; charged: boolean }> {
    let stopped = false;
    let charged = false;
    // What the owner is told once the transaction committed: the balance after its last charge, and alerts.
    const told = await this.#sql().transaction(async (tx) => {
      const row = await tx.one<BoxRow>(`${SELECT_BOX} where b.id = ? for update of b`, [id]);
      if (!row || row.status !== 'RUNNING' || !row.session_started_at || !row.usage_counted_until)
        return null;
      let lastCharge: LedgerEntry | null = null;
      const alerts: NewNotification[] = [];
      const from = new Date(row.usage_counted_until);
      const seconds = Math.max(0, Math.floor((now.getTime() - from.getTime()) / 1000));
      const countedUntil = new Date(from.getTime() + seconds * 1000);
      // Split the interval at UTC midnights so each day gets its own seconds.
      let cursor = from;
      while (cursor < countedUntil) {
        const nextMidnight = new Date(`${utcDay(cursor)}T00:00:00.000Z`);
        nextMidnight.setUTCDate(nextMidnight.getUTCDate() + 1);
        const end = nextMidnight < countedUntil ? nextMidnight : countedUntil;
        const part = Math.round((end.getTime() - cursor.getTime()) / 1000);
        if (part > 0)
          await tx.run(
            `insert into box_daily_usage (user_id, day, seconds) values (?, ?, ?)
             on conflict (user_id, day) do update set seconds = box_daily_usage.seconds + excluded.seconds`,
            [row.user_id, utcDay(cursor), part],
          );
        cursor = end;
      }
      const hourCents = TIER_PERKS[row.tier].machineHourCost * 100;
      const due = dueMinutes(
        now.getTime() - new Date(row.session_started_at).getTime(),
        this.#o.minimumChargeMinutes,
      );
      let minutes = row.session_charged_minutes;
      let stopReason: string | null = null;
      while (minutes < due) {
        const minute = minutes + 1;
        const entry = await Ledger.charge(
          tx,
          row.user_id,
          minuteCost(hourCents, minute),
          'BOX_TIME',
          `box:${row.id}:${row.session_started_at}:${minute}`,
        );
        if (!entry) {
          stopReason = BOX_MESSAGES.cannotPay;
          break;
        }
        minutes = minute;
        lastCharge = entry;
      }
      const limit = this.dailyLimitFor(row.tier);
      if (!stopReason && limit !== null) {
        const used = await tx.one<{ seconds: number }>(
          'select seconds from box_daily_usage where user_id = ? and day = ?',
          [row.user_id, utcDay(now)],
        );
        if ((used?.seconds ?? 0) >= limit) stopReason = BOX_MESSAGES.dailyLimit;
      }
      // The platform never stops a defender's box in a fight (starting one checked that it can
      // pay for the whole time limit): it stops once the attack has ended.
      if (
        stopReason &&
        (await tx.one('select 1 from attacks where box_id = ? and status = ?', [id, 'PENDING']))
      )
        stopReason = null;
      await tx.run(
        `update boxes set accumulated_usage_seconds = accumulated_usage_seconds + ?, usage_counted_until = ?,
                session_charged_minutes = ?,
                desired_power = case when ? then false else desired_power end,
                status_reason = coalesce(?, status_reason), updated_at = now()
          where id = ?`,
        [seconds, countedUntil.toISOString(), minutes, stopReason !== null, stopReason, id],
      );
      charged = charged || minutes > row.session_charged_minutes;
      if (stopReason) {
        stopped = true;
        this.#log.info({ box: id, reason: stopReason }, 'Stopping a box');
        // Told once: a later pass finds the box no longer wanted on.
        if (row.desired_power)
          alerts.push(
            boxStoppedAlert(
              row.user_id,
              stopReason === BOX_MESSAGES.cannotPay ? 'outOfCredits' : 'dailyLimit',
            ),
          );
      } else if (lastCharge && (await this.#lowCreditsEpisode(tx, lastCharge, hourCents))) {
        alerts.push(lowCreditsAlert(row.user_id, balanceOf(lastCharge), hourCents));
      }
      return { userId: row.user_id, lastCharge, alerts };
    });
    if (told?.lastCharge) this.#o.balances?.publish(told.userId, told.lastCharge);
    for (const alert of told?.alerts ?? [])
      void this.#o.notifications
        ?.send(alert)
        .catch((err: unknown) => this.#log.error({ err, box: id }, 'Could not send a credit alert'));
    return { stopped, charged };
  }

  /**
   * Whether this charge begins a low-credits episode: it left less than an hour of box time (`hourCents`), and
   * the owner was not told yet, or was, but a ledger row since then showed an hour's worth again (they got
   * credits). Marks the episode in the same transaction as the charge, so it is told once.
   */
  async #lowCreditsEpisode(tx: Sql, charge: LedgerEntry, hourCents: number): Promise<boolean> {
    if (balanceOf(charge) >= hourCents) return false;
    const marked = await tx.run(
      `update users u set low_credit_alert_entry_id = ?
        where u.id = (select user_id from credit_ledger where id = ?)
          and (u.low_credit_alert_entry_id is null or exists (
                select 1 from credit_ledger l
                 where l.user_id = u.id and l.id > u.low_credit_alert_entry_id
                   and l.credits_after_cents + l.free_credits_after_cents >= ?))`,
      [charge.id, charge.id, hourCents],
    );
    return marked > 0;
  }

  /**
   * Whether a player's running box can pay for `seconds` more box time: its credits for every
   * minute still to charge by then, and what is left of the BASIC daily limit (a defender must
   * be able to stay up for a whole attack).
   */
  async canRunFor(userId: string, seconds: number): Promise<boolean> {
    return (await this.whoCanRunFor([userId], seconds)).has(userId);
  }

  /** Of these players, those whose running box can pay for `seconds` more box time (see canRunFor). */
  async whoCanRunFor(userIds: string[], seconds: number): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const rows = await this.#sql().all<{
      user_id: string;
      tier: Tier;
      session_started_at: string;
      session_charged_minutes: number;
      balance_cents: string;
      used_seconds: number;
    }>(
      `select b.user_id, u.tier, b.session_started_at, b.session_charged_minutes,
              u.credits_cents + u.free_credits_cents as balance_cents, coalesce(d.seconds, 0) as used_seconds
         from boxes b join users u on u.id = b.user_id
         left join box_daily_usage d on d.user_id = b.user_id and d.day = ?
        where b.user_id in (select value::uuid from jsonb_array_elements_text(?::jsonb))
          and b.status = 'RUNNING' and b.session_started_at is not null`,
      [utcDay(new Date()), JSON.stringify(userIds)],
    );
    const until = Date.now() + seconds * 1000;
    const can = new Set<string>();
    for (const row of rows) {
      const limit = this.dailyLimitFor(row.tier);
      if (limit !== null && limit - row.used_seconds < seconds) continue;
      // Minutes still to charge by then, at the tier's rate (their costs telescope).
      const hourCents = TIER_PERKS[row.tier].machineHourCost * 100;
      const due = dueMinutes(
        until - new Date(row.session_started_at).getTime(),
        this.#o.minimumChargeMinutes,
      );
      const charged = row.session_charged_minutes;
      const cost = due > charged ? minutesCost(hourCents, due) - minutesCost(hourCents, charged) : 0;
      if (Number(row.balance_cents) >= cost) can.add(row.user_id);
    }
    return can;
  }

  dailyLimitFor(tier: Tier): number | null {
    return TIER_PERKS[tier].dailyBoxLimited ? this.#o.basicDailyLimitSeconds : null;
  }

  /** Seconds of box time left today under the BASIC daily limit (Infinity for tiers without one). */
  async dailyRemaining(sql: Sql, row: Pick<BoxRow, 'user_id' | 'tier'>): Promise<number> {
    const limit = this.dailyLimitFor(row.tier);
    if (limit === null) return Number.POSITIVE_INFINITY;
    const used = await sql.one<{ seconds: number }>(
      'select seconds from box_daily_usage where user_id = ? and day = ?',
      [row.user_id, utcDay(new Date())],
    );
    return Math.max(0, limit - (used?.seconds ?? 0));
  }
}
