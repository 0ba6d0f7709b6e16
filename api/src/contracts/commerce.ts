/**
 * Credits that players buy and gifts they redeem (commerce-and-content spec sections 2-5, 7-9; docs/credits.md):
 * plans, checkout, payment status, gift tokens and the player's own ledger.
 */
import { z } from 'zod';
import { pagingFields } from './paging.ts';
import { PAYMENT_PROVIDERS, PURCHASE_MAX_USD, PURCHASE_MIN_USD, TIERS } from './constants.ts';

/** `GET /subscription/config`. */
export const subscriptionConfigSchema = z
  .object({
    /** The provider checkout goes through. */
    provider: z.enum(PAYMENT_PROVIDERS),
    /** False on a platform with no payment keys: the Purchase tab says so and points to gift tokens. */
    paymentsEnabled: z.boolean(),
    /** Box time a BASIC player may use per day (BASIC_DAILY_LIMIT_MINUTES): the tier overview's session limit. */
    basicDailyLimitMinutes: z.number().int().positive(),
    /** Box minutes charged at each power-on, however soon the box stops (BOX_MINIMUM_CHARGE_MINUTES). */
    boxMinimumChargeMinutes: z.number().int().positive(),
  })
  .meta({ id: 'SubscriptionConfig' });
export type SubscriptionConfig = z.infer<typeof subscriptionConfigSchema>;

export const checkoutRequest = z
  .strictObject({
    amount: z
      .number({ error: 'amount must be a number of dollars' })
      .int('amount must be a whole number of dollars')
      .min(PURCHASE_MIN_USD, `amount must be between ${PURCHASE_MIN_USD} and ${PURCHASE_MAX_USD} dollars`)
      .max(PURCHASE_MAX_USD, `amount must be between ${PURCHASE_MIN_USD} and ${PURCHASE_MAX_USD} dollars`),
    tier: z.enum(TIERS, { error: `tier must be one of ${TIERS.join(', ')}` }).default('BASIC'),
  })
  .meta({ id: 'CheckoutRequest' });
export type CheckoutRequest = z.input<typeof checkoutRequest>;

/** `POST /subscription/checkout`: where the player's browser goes next. */
export const checkoutResponseSchema = z
  .object({
    provider: z.enum(PAYMENT_PROVIDERS),
    /** Our purchase row: written before the provider was called. */
    purchaseId: z.uuid(),
    /** Stripe: the Checkout Session's id (what payment-status takes as sessionId). */
    sessionId: z.string().optional(),
    /** Stripe: its hosted page; Paddle: our /checkout/paddle page with the checkout's parameters. */
    checkoutUrl: z.string(),
  })
  .meta({ id: 'CheckoutResponse' });
export type CheckoutResponse = z.infer<typeof checkoutResponseSchema>;

export const paymentStatusQuery = z.strictObject({
  /** The Stripe session id, the Paddle transaction id, or our purchase id. */
  sessionId: z.string().trim().min(1, 'sessionId is required').max(255, 'sessionId is too long'),
  /** The credits the page saw before paying (informational; the answer comes from our purchase row). */
  initialCredits: z.string().max(32, 'initialCredits is too long').optional(),
});
export type PaymentStatusQuery = z.input<typeof paymentStatusQuery>;

/** `GET /subscription/payment-status`: confirmed when success and creditsAdded > 0. */
export const paymentStatusSchema = z
  .object({
    success: z.boolean(),
    /** Credits (2 decimals) the purchase added, 0 until its webhook landed. */
    creditsAdded: z.number(),
    /** The player's credits now (2 decimals). */
    currentCredits: z.number(),
  })
  .meta({ id: 'PaymentStatus' });
export type PaymentStatus = z.infer<typeof paymentStatusSchema>;

/** Gift tokens: XXXX-XXXX-XXXX from an alphabet without look-alikes (docs/credits.md). */
export const GIFT_TOKEN_PATTERN = /^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/;
export const giftRedeemRequest = z
  .strictObject({
    token: z
      .string({ error: 'token is required' })
      .trim()
      .min(1, 'token is required')
      .max(64, 'Invalid or already redeemed token'),
  })
  .meta({ id: 'GiftRedeemRequest' });
export type GiftRedeemRequest = z.input<typeof giftRedeemRequest>;

export const giftRedeemResponseSchema = z
  .object({ creditsGranted: z.number() })
  .meta({ id: 'GiftRedeemResponse' });
export type GiftRedeemResponse = z.infer<typeof giftRedeemResponseSchema>;

/** Why a balance changed (docs/credits.md). */
export const LEDGER_REASONS = [
  'SIGNUP_GIFT',
  'BOX_TIME',
  'ATTACK',
  'PURCHASE',
  'GIFT_TOKEN',
  'ADJUSTMENT',
  'REFUND',
  'CHARGEBACK',
] as const;
export type LedgerReason = (typeof LEDGER_REASONS)[number];

export const LEDGER_PAGE_SIZE = 20;
export const ledgerQuery = z.strictObject(pagingFields(LEDGER_PAGE_SIZE));
export type LedgerQuery = z.input<typeof ledgerQuery>;

export const ledgerEntrySchema = z
  .object({
    id: z.string(),
    createdAt: z.string(),
    reason: z.enum(LEDGER_REASONS),
    /** What the player reads: 'Box time (12 min)', 'Purchase $20', 'Gift token', ... */
    description: z.string(),
    /** Changes and balances after, in credits with 2 decimals. */
    creditsDelta: z.number(),
    freeCreditsDelta: z.number(),
    credits: z.number(),
    freeCredits: z.number(),
  })
  .meta({ id: 'LedgerEntry' });
export type LedgerEntryView = z.infer<typeof ledgerEntrySchema>;

export const ledgerPageSchema = z
  .object({ data: z.array(ledgerEntrySchema), total: z.number().int() })
  .meta({ id: 'LedgerPage' });
export type LedgerPage = z.infer<typeof ledgerPageSchema>;

/** Sent on /grid and /vpn-status when a balance changed (a webhook credited, a gift, a refund, box time). */
export interface BalancePayload {
  credits: number;
  freeCredits: number;
}
