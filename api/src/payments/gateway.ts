import type { z } from 'zod';
import type { PaymentProvider, Tier } from '../contracts/index.ts';

/** What a provider is asked to take payment for: our purchase row, written before the call. */
export interface CheckoutOrder {
  purchaseId: string;
  userId: string;
  email: string;
  /** US cents the player pays. */
  amountCents: number;
  /** Hundredths of a credit the purchase buys (shown in the product's name). */
  creditsCents: number;
  tier: Tier;
}

/** Where the player goes next, and the provider's reference that its webhooks will name. */
export interface CheckoutStarted {
  providerRef: string;
  checkoutUrl: string;
  /** What the portal passes back to payment-status (Stripe: the Checkout Session's id). */
  sessionId?: string;
}

/** How a provider event names our purchase: any one of these is enough. */
export interface PurchaseRef {
  /** Our purchase id, from the metadata or custom data we gave the provider. */
  purchaseId?: string | null;
  /** The checkout's id at the provider (Stripe's session, Paddle's transaction). */
  providerRef?: string | null;
  /** The payment behind the checkout (Stripe's PaymentIntent; Paddle's transaction). */
  paymentRef?: string | null;
}

/** What an event means for a purchase, in the provider's money (minor units of `currency`). */
export type PaymentChange =
  /** The provider collected the payment: credit the purchase, once, from our own row. */
  | {
      kind: 'paid';
      /** What the provider collected, taxes included (`taxCents` of it, where it says). */
      paidCents: number | null;
      taxCents?: number | null;
      /** Discounts the player got at the provider (a code they typed): such a payment is held for staff. */
      discountCents?: number | null;
      currency: string | null;
      paymentRef: string | null;
    }
  /** Stripe's running total of what was refunded on the payment (a repeated or older total changes nothing). */
  | { kind: 'refunded'; totalRefundedCents: number }
  /** One refund or chargeback with an id of its own (Paddle adjustments, Stripe disputes); 'all' for a full one. */
  | { kind: 'reversed'; reversalId: string; cents: number | 'all'; chargeback: boolean }
  /** The checkout ended without a payment. */
  | { kind: 'closed'; status: 'expired' | 'canceled' }
  /** An event we record (so a repeat is a no-op) but do not act on. */
  | { kind: 'ignored' };

/** A verified provider event, reduced to what the purchase needs. */
export interface PaymentEvent {
  /** The provider's id of the event: its de-duplication key. */
  id: string;
  type: string;
  purchase: PurchaseRef;
  change: PaymentChange;
}

/** A webhook that is not the provider's (signature, timestamp) or not what it promises to be. */
export class WebhookRefused extends Error {
  override name = 'WebhookRefused';
}

/**
 * A payment provider behind checkout and its webhooks (Stripe and Paddle implement it). Each verifies its
 * webhooks its own way, on the raw body, and translates its events into PaymentEvents; what an event does
 * to a purchase and the ledger is decided in one place (PaymentService), the same for both.
 */
export interface PaymentGateway {
  readonly name: PaymentProvider;
  /** The sentence a player reads when this provider could not start a checkout (spec section 8). */
  readonly failureMessage: string;
  startCheckout(order: CheckoutOrder): Promise<CheckoutStarted>;
  /** Verifies and reads a webhook; throws WebhookRefused for one that is not the provider's. */
  readWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<PaymentEvent>;
}

/** How far a webhook's signed timestamp may lie ahead of our clock (the SDKs only refuse old ones). */
export const WEBHOOK_FUTURE_TOLERANCE_SECONDS = 300;

/**
 * Refuses a signature header whose timestamp (`t=` for Stripe, `ts=` for Paddle) is further in the future than
 * the tolerance: a signature made ahead of time would otherwise stay valid for as long as its maker chose.
 */
export function refuseFutureTimestamp(signature: string, key: 't' | 'ts', nowMs = Date.now()): void {
  const found = new RegExp(`(?:^|[;,])\\s*${key}=(\\d{1,12})(?:[;,]|$)`).exec(signature);
  if (found && Number(found[1]) > nowMs / 1000 + WEBHOOK_FUTURE_TOLERANCE_SECONDS)
    throw new WebhookRefused('The signature’s timestamp is in the future.');
}

/**
 * Reads a verified webhook's payload (or part of it) with `schema`; one of another shape is refused, naming the
 * first field that did not fit: `Unexpected Stripe event: data.object.id is not a Stripe id`.
 */
export function parseWebhookPart<T extends z.ZodType>(
  provider: 'Stripe' | 'Paddle',
  schema: T,
  value: unknown,
  what: string,
): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new WebhookRefused(
      `Unexpected ${provider} ${what}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim(),
    );
  }
  return result.data;
}

/** Our purchase ids are UUIDs; anything else in a provider's metadata is not ours. */
export const purchaseIdOrNull = (value: unknown): string | null =>
  typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
    ? value.toLowerCase()
    : null;

/** `1,234 credits` for a product name (hundredths in, whole credits with 2 decimals only when needed). */
export function creditsLabel(creditsCents: number): string {
  const credits = creditsCents / 100;
  return `${credits.toLocaleString('en-US', { maximumFractionDigits: 2 })} credits`;
}
