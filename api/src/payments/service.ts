import type { EntityManager } from '@mikro-orm/postgresql';
import type { Throttle } from '../auth/throttle.ts';
import type { Config } from '../config.ts';
import {
  COMMERCE_MESSAGES,
  CREDITS_PER_USD,
  PURCHASABLE_TIERS,
  TIER_ORDER,
  type CheckoutResponse,
  type PaymentProvider,
  type PaymentStatus,
  type SubscriptionConfig,
  type Tier,
} from '../contracts/index.ts';
import type { BalanceEvents } from '../credits/balance-events.ts';
import { Ledger, type LedgerEntry } from '../credits/ledger.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import { HttpError, badRequest, notFound, serviceUnavailable } from '../http/errors.ts';
import type { Logger } from '../logger.ts';
import {
  WebhookRefused,
  purchaseIdOrNull,
  type PaymentChange,
  type PaymentEvent,
  type PaymentGateway,
  type PurchaseRef,
} from './gateway.ts';
import { PaddleGateway } from './paddle.ts';
import { StripeGateway } from './stripe.ts';

/** The rank of `users.tier` in the spec's tier order, in SQL (built from constants, no input). */
const TIER_RANK_SQL = `(case tier ${Object.entries(TIER_ORDER)
  .map(([tier, rank]) => `when '${tier}' then ${rank}`)
  .join(' ')} end)`;

interface PurchaseRow {
  id: string;
  user_id: string;
  provider: PaymentProvider;
  amount_cents: string;
  currency: string;
  credits_cents: string;
  tier: Tier;
  status: string;
  provider_ref: string | null;
  provider_payment_ref: string | null;
  paid_cents: string | null;
  credited_entry_id: string | null;
  refunded_cents: string;
}

/** What one provider event did: what the log says, and the ledger rows to tell the player about. */
interface Applied {
  outcome: string;
  purchaseId?: string;
  userId?: string;
  entries: LedgerEntry[];
}

export interface PaymentServiceDeps {
  orm: Orm;
  logger: Logger;
  balances: BalanceEvents;
  throttle: Throttle;
  settings: Config['payments'];
  publicUrl: string;
  /** BASIC's daily box time, told with the configuration (the tier overview shows it). */
  basicDailyLimitMinutes: number;
  /** Box minutes charged at each power-on (where players read what a box costs). */
  boxMinimumChargeMinutes: number;
}

/**
 * Buying credits (docs/payments.md): a purchase row is written before a provider is called; only the
 * provider's verified webhook credits it, once, from our own row, in the ledger's transaction discipline.
 * Refunds and chargebacks take back the refunded share of the paid credits, as far as they are still there.
 */
export class PaymentService {
  readonly #deps: PaymentServiceDeps;
  readonly #log: Logger;
  readonly #gateways = new Map<PaymentProvider, PaymentGateway>();

  constructor(deps: PaymentServiceDeps) {
    this.#deps = deps;
    this.#log = deps.logger.child({ component: 'payments' });
    const { stripe, paddle } = deps.settings;
    if (stripe) this.#gateways.set('stripe', new StripeGateway(stripe, deps.publicUrl));
    if (paddle) this.#gateways.set('paddle', new PaddleGateway(paddle));
  }

  #sql() {
    return new Sql(this.#deps.orm.em.fork() as EntityManager);
  }

  config(): SubscriptionConfig {
    return {
      provider: this.#deps.settings.provider,
      paymentsEnabled: this.#deps.settings.enabled,
      basicDailyLimitMinutes: this.#deps.basicDailyLimitMinutes,
      boxMinimumChargeMinutes: this.#deps.boxMinimumChargeMinutes,
    };
  }

  /** Writes the purchase, then asks the provider for a checkout that points back at it. */
  async checkout(userId: string, request: { amount: number; tier: Tier }): Promise<CheckoutResponse> {
    if (!(PURCHASABLE_TIERS as readonly Tier[]).includes(request.tier))
      throw badRequest(COMMERCE_MESSAGES.tierComingSoon);
    const provider = this.#deps.settings.provider;
    const gateway = this.#deps.settings.enabled ? this.#gateways.get(provider) : undefined;
    if (!gateway) throw serviceUnavailable(COMMERCE_MESSAGES.paymentsDisabled);
    await this.#deps.throttle.consume(['checkout', userId]);

    const sql = this.#sql();
    const user = await sql.one<{ email: string }>('select email from users where id = ?', [userId]);
    if (!user) throw notFound('User not found');
    const amountCents = request.amount * 100;
    const creditsCents = request.amount * CREDITS_PER_USD * 100;
    const purchase = await sql.one<{ id: string }>(
      `insert into purchases (user_id, provider, amount_cents, currency, credits_cents, tier)
       values (?, ?, ?, 'usd', ?, ?) returning id`,
      [userId, provider, amountCents, creditsCents, request.tier],
    );
    const purchaseId = purchase!.id;
    let started;
    try {
      started = await gateway.startCheckout({
        purchaseId,
        userId,
        email: user.email,
        amountCents,
        creditsCents,
        tier: request.tier,
      });
    } catch (err) {
      await sql.run(
        `update purchases set status = 'canceled', updated_at = now() where id = ? and status = 'pending'`,
        [purchaseId],
      );
      this.#log.error(
        { err: providerError(err), purchaseId, provider },
        'Could not start a checkout at the payment provider',
      );
      throw new HttpError(502, gateway.failureMessage);
    }
    await sql.run('update purchases set provider_ref = ?, updated_at = now() where id = ?', [
      started.providerRef,
      purchaseId,
    ]);
    this.#log.info({ purchaseId, userId, provider, amountCents }, 'Started a checkout');
    return { provider, purchaseId, sessionId: started.sessionId, checkoutUrl: started.checkoutUrl };
  }

  /**
   * Whether the caller's purchase (named by the provider's session or transaction id, or ours) was credited.
   * Only the caller's own purchases are read: another player's id answers like one not paid yet.
   */
  async status(userId: string, sessionId: string): Promise<PaymentStatus> {
    const sql = this.#sql();
    const row = await sql.one<{ credited_entry_id: string | null; credits_delta_cents: string | null }>(
      `select p.credited_entry_id, l.credits_delta_cents
         from purchases p left join credit_ledger l on l.id = p.credited_entry_id
        where p.user_id = ? and (p.provider_ref = ? or p.id = ?)
        order by p.created_at desc limit 1`,
      [userId, sessionId, purchaseIdOrNull(sessionId)],
    );
    const balances = await Ledger.balances(sql, userId);
    return {
      success: row?.credited_entry_id != null,
      creditsAdded: Number(row?.credits_delta_cents ?? 0) / 100,
      currentCredits: (balances?.creditsCents ?? 0) / 100,
    };
  }

  /** A provider's webhook, as received: verified on its raw body, then applied. */
  async receiveWebhook(
    provider: PaymentProvider,
    rawBody: unknown,
    headers: Record<string, string | string[] | undefined>,
  ): Promise<void> {
    const gateway = this.#gateways.get(provider);
    if (!gateway)
      throw serviceUnavailable(`Payments through ${provider} are not configured on this platform.`);
    if (!Buffer.isBuffer(rawBody) || rawBody.length === 0) throw badRequest('The webhook has no body.');
    let event: PaymentEvent;
    try {
      event = await gateway.readWebhook(rawBody, headers);
    } catch (err) {
      if (!(err instanceof WebhookRefused)) throw err;
      this.#log.warn({ provider, reason: err.message }, 'Refused a payment webhook');
      throw badRequest(err.message);
    }
    await this.apply(provider, event);
  }

  /**
   * Applies a verified provider event, once: its id is recorded in the same transaction, so a repeated
   * delivery (also 20 at once) finds it and changes nothing. Deadlock and serialization victims run again.
   */
  async apply(provider: PaymentProvider, event: PaymentEvent): Promise<Applied> {
    const applied = await retryTransient(() =>
      this.#sql().transaction((tx) => this.#applyIn(tx, provider, event)),
    );
    // After the commit: the player's sidebar follows the balance without a reload.
    for (const entry of applied.entries) this.#deps.balances.publish(applied.userId!, entry);
    this.#log.info(
      {
        provider,
        eventId: event.id,
        type: event.type,
        purchaseId: applied.purchaseId,
        userId: applied.userId,
        outcome: applied.outcome,
        creditsDeltaCents: applied.entries.map((e) => e.creditsDeltaCents),
      },
      'Handled a payment event',
    );
    return applied;
  }

  async #applyIn(tx: Sql, provider: PaymentProvider, event: PaymentEvent): Promise<Applied> {
    const found = await findPurchase(tx, provider, event.purchase);
    // The purchase is locked before the event row is written: that row's foreign key takes a share lock on
    // it, and two events of one purchase upgrading their share locks would deadlock each other.
    const row = found
      ? await tx.one<PurchaseRow>('select * from purchases where id = ? for update', [found])
      : undefined;
    const fresh = await tx.one(
      `insert into payment_events (provider, event_id, type, purchase_id) values (?, ?, ?, ?)
       on conflict do nothing returning event_id`,
      [provider, event.id, event.type, found ?? null],
    );
    if (!fresh) return { outcome: 'duplicate', entries: [] };
    if (event.change.kind === 'ignored') return { outcome: 'ignored', entries: [] };
    if (!row) {
      // A refund or dispute that overtook the payment's own event names the payment, which only that event
      // tells us: refused (and not recorded), the provider delivers it again later, when we know it.
      if (event.change.kind === 'refunded' || event.change.kind === 'reversed')
        throw new HttpError(
          409,
          'This refund or dispute names a payment we do not know yet; send it again later.',
        );
      this.#log.warn(
        { provider, eventId: event.id, type: event.type },
        'A payment event names no purchase of ours',
      );
      return { outcome: 'no such purchase', entries: [] };
    }
    const base = { purchaseId: row.id, userId: row.user_id };
    switch (event.change.kind) {
      case 'paid':
        return { ...base, ...(await this.#credit(tx, row, event.change)) };
      case 'refunded':
      case 'reversed':
        return { ...base, ...(await this.#reverse(tx, provider, row, event.change)) };
      case 'closed': {
        const closed = await tx.run(
          `update purchases set status = ?, updated_at = now()
            where id = ? and status = 'pending' and credited_entry_id is null`,
          [event.change.status, row.id],
        );
        return { ...base, outcome: closed ? event.change.status : 'not pending', entries: [] };
      }
    }
  }

  /** Credits the purchase from our row, once (`credited_entry_id is null`), and gives the player its tier. */
  async #credit(
    tx: Sql,
    row: PurchaseRow,
    paid: Extract<PaymentChange, { kind: 'paid' }>,
  ): Promise<Omit<Applied, 'purchaseId' | 'userId'>> {
    const amountCents = Number(row.amount_cents);
    // Paid in full, in our currency, without a discount the player typed at the provider (taxes on top or
    // included both pass). Anything else is held for staff, never credited in full: the credits come from our
    // row, so a cheaper payment must not buy them.
    const matches =
      paid.currency === row.currency &&
      paid.paidCents !== null &&
      paid.paidCents >= amountCents &&
      !((paid.discountCents ?? 0) > 0);
    const paidCents = paid.paidCents && paid.paidCents > 0 ? paid.paidCents : null;
    await tx.run(
      `update purchases set provider_payment_ref = coalesce(provider_payment_ref, ?),
              paid_cents = coalesce(paid_cents, ?), paid_at = coalesce(paid_at, now()), updated_at = now()
        where id = ?`,
      [paid.paymentRef, paidCents, row.id],
    );
    if (row.credited_entry_id !== null) return { outcome: 'credited before', entries: [] };
    if (!matches) {
      await tx.run(`update purchases set status = 'held', updated_at = now() where id = ?`, [row.id]);
      this.#log.error(
        {
          purchaseId: row.id,
          expected: { amountCents, currency: row.currency },
          paid: {
            cents: paid.paidCents,
            taxCents: paid.taxCents,
            discountCents: paid.discountCents,
            currency: paid.currency,
          },
        },
        'A payment does not match its purchase: held for staff, nothing credited',
      );
      return { outcome: 'held: the payment does not match the purchase', entries: [] };
    }

    const credits = Number(row.credits_cents);
    // A refund that arrived before the payment's own event: only what was kept is credited. Such refunds were
    // measured against our amount (what was paid was not known yet), so the same base measures them here.
    const baseCents =
      row.paid_cents === null && Number(row.refunded_cents) > 0
        ? amountCents
        : Number(row.paid_cents ?? paidCents ?? amountCents);
    const grant = credits - refundedShare(credits, Number(row.refunded_cents), baseCents);
    if (grant <= 0) return { outcome: 'refunded before it was paid', entries: [] };
    const entry = await Ledger.grant(tx, row.user_id, { creditsCents: grant }, 'PURCHASE', row.id);
    const claimed = await tx.run(
      `update purchases set credited_entry_id = ?,
              status = case when status in ('pending', 'canceled', 'expired') then 'paid' else status end,
              updated_at = now()
        where id = ? and credited_entry_id is null`,
      [entry.id, row.id],
    );
    // Held off by the row lock; should it ever happen, the transaction (and its ledger row) rolls back.
    if (claimed !== 1) throw new Error(`purchase ${row.id} was credited twice`);
    // A purchase raises the tier, never lowers one (a higher tier staff gave stays).
    await tx.run(`update users set tier = ?, updated_at = now() where id = ? and ${TIER_RANK_SQL} < ?`, [
      row.tier,
      row.user_id,
      TIER_ORDER[row.tier],
    ]);
    return { outcome: 'credited', entries: [entry] };
  }

  /**
   * Takes back the share of the purchase's credits that the refunds (or the chargeback) so far cover and
   * earlier ones did not; as much of it as the player still has in paid credits. What was taken is recorded.
   */
  async #reverse(
    tx: Sql,
    provider: PaymentProvider,
    row: PurchaseRow,
    change: Extract<PaymentChange, { kind: 'refunded' | 'reversed' }>,
  ): Promise<Omit<Applied, 'purchaseId' | 'userId'>> {
    const baseCents = Number(row.paid_cents ?? row.amount_cents);
    const before = Number(row.refunded_cents);
    let after: number;
    let chargeback = false;
    if (change.kind === 'refunded') {
      // Stripe's running total: an older or repeated total moves nothing.
      after = Math.max(before, change.totalRefundedCents);
    } else {
      // A refund or dispute with an id of its own is counted once, whichever events bring it.
      const fresh = await tx.one(
        `insert into payment_events (provider, event_id, type, purchase_id) values (?, ?, ?, ?)
         on conflict do nothing returning event_id`,
        [provider, `reversal:${change.reversalId}`, change.chargeback ? 'chargeback' : 'refund', row.id],
      );
      if (!fresh) return { outcome: 'reversal counted before', entries: [] };
      after = change.cents === 'all' ? Math.max(before, baseCents) : before + change.cents;
      chargeback = change.chargeback;
    }
    if (after === before && !chargeback) return { outcome: 'nothing more refunded', entries: [] };

    const credits = Number(row.credits_cents);
    const due = refundedShare(credits, after, baseCents) - refundedShare(credits, before, baseCents);
    const entry =
      row.credited_entry_id !== null && due > 0
        ? await Ledger.reclaim(tx, row.user_id, due, chargeback ? 'CHARGEBACK' : 'REFUND', row.id)
        : null;
    const taken = entry ? -entry.creditsDeltaCents : 0;
    const status =
      chargeback || row.status === 'disputed'
        ? 'disputed'
        : after >= baseCents
          ? 'refunded'
          : after > 0
            ? 'partially_refunded'
            : row.status;
    await tx.run(
      `update purchases set refunded_cents = ?, debited_credits_cents = debited_credits_cents + ?, status = ?,
              updated_at = now()
        where id = ?`,
      [after, taken, status, row.id],
    );
    if (taken < due && row.credited_entry_id !== null)
      this.#log.warn(
        { purchaseId: row.id, dueCents: due, takenCents: taken },
        'A refund took back fewer credits than it covers: the player had spent them',
      );
    return { outcome: chargeback ? 'charged back' : 'refunded', entries: entry ? [entry] : [] };
  }
}

/** The credits that `refundedCents` of `baseCents` paid cover (rounded down: the player keeps a fraction). */
export function refundedShare(creditsCents: number, refundedCents: number, baseCents: number): number {
  if (baseCents <= 0 || refundedCents <= 0) return 0;
  return Math.floor((creditsCents * Math.min(refundedCents, baseCents)) / baseCents);
}

/**
 * Our purchase an event names, by the provider's own references only (its session or transaction, its
 * payment). Our id in an event's metadata is not enough: on Paddle the player's browser writes that metadata,
 * and a checkout is handed out only after its reference is stored, so a genuine payment always has one.
 */
async function findPurchase(tx: Sql, provider: PaymentProvider, ref: PurchaseRef): Promise<string | null> {
  if (!ref.providerRef && !ref.paymentRef) return null;
  const rows = await tx.all<{ id: string; provider_ref: string | null; provider_payment_ref: string | null }>(
    `select id, provider_ref, provider_payment_ref from purchases
      where provider = ? and (provider_ref = ? or provider_payment_ref = ?)`,
    [provider, ref.providerRef ?? null, ref.paymentRef ?? null],
  );
  const byRef =
    rows.find((r) => ref.providerRef && r.provider_ref === ref.providerRef) ??
    rows.find((r) => ref.paymentRef && r.provider_payment_ref === ref.paymentRef);
  return byRef?.id ?? null;
}

/** Runs `fn` again when PostgreSQL ended its transaction as a deadlock's or a serialization failure's victim. */
async function retryTransient<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (attempt >= 5 || (code !== '40P01' && code !== '40001')) throw err;
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.random() * 20));
    }
  }
}

/** What a log may say about a provider's error: no request, no headers, no keys. */
function providerError(err: unknown): Record<string, unknown> {
  if (typeof err !== 'object' || err === null) return { message: String(err) };
  const e = err as Record<string, unknown>;
  return {
    name: e.name,
    type: e.type,
    code: e.code,
    statusCode: e.statusCode,
    requestId: e.requestId,
    message: typeof e.message === 'string' ? e.message.slice(0, 300) : undefined,
  };
}
