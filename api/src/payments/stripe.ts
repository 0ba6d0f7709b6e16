import Stripe from 'stripe';
import { z } from 'zod';
import { COMMERCE_MESSAGES } from '../contracts/index.ts';
import {
  WebhookRefused,
  creditsLabel,
  parseWebhookPart,
  purchaseIdOrNull,
  refuseFutureTimestamp,
  type CheckoutOrder,
  type CheckoutStarted,
  type PaymentChange,
  type PaymentEvent,
  type PaymentGateway,
  type PurchaseRef,
} from './gateway.ts';

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** Base URL of another Stripe API (stripe-mock in tests). */
  apiUrl?: string | undefined;
}

/** Stripe's ids: a prefix and letters, digits and underscores. */
const stripeId = z.string().regex(/^[A-Za-z0-9_]{1,255}$/, 'is not a Stripe id');
const expandable = z
  .union([stripeId, z.object({ id: stripeId })])
  .transform((v) => (typeof v === 'string' ? v : v.id));
const metadata = z.record(z.string(), z.string()).nullish();
const currency = z.string().regex(/^[a-z]{3}$/, 'is not a currency code');
const cents = z.number().int().nonnegative();

const eventSchema = z.object({
  id: stripeId,
  type: z.string().regex(/^[a-z0-9_.]{1,100}$/, 'is not an event type'),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});
const sessionSchema = z.object({
  id: stripeId,
  client_reference_id: z.string().max(200).nullish(),
  metadata,
  payment_status: z.string().max(40),
  amount_total: cents.nullish(),
  total_details: z.object({ amount_discount: cents.nullish() }).nullish(),
  currency: currency.nullish(),
  payment_intent: expandable.nullish(),
});
const chargeSchema = z.object({
  id: stripeId,
  payment_intent: expandable.nullish(),
  amount_refunded: cents,
  metadata,
});
const disputeSchema = z.object({
  id: stripeId,
  payment_intent: expandable.nullish(),
  amount: cents,
});

/** Stripe Checkout (hosted page, mode=payment) through the official SDK; webhooks per Stripe's signature rules. */
export class StripeGateway implements PaymentGateway {
  readonly name = 'stripe' as const;
  readonly failureMessage = COMMERCE_MESSAGES.stripeFailed;
  readonly #stripe: Stripe;
  readonly #webhookSecret: string;
  readonly #publicUrl: string;

  constructor(settings: StripeSettings, publicUrl: string) {
    const api = settings.apiUrl ? new URL(settings.apiUrl) : undefined;
    this.#stripe = new Stripe(settings.secretKey, {
      // The SDK retries network failures with the same idempotency key: one session either way.
      maxNetworkRetries: 2,
      timeout: 20_000,
      telemetry: false,
      ...(api && {
        host: api.hostname,
        port: api.port || (api.protocol === 'https:' ? 443 : 80),
        protocol: api.protocol === 'https:' ? 'https' : 'http',
      }),
    });
    this.#webhookSecret = settings.webhookSecret;
    this.#publicUrl = publicUrl;
  }

  async startCheckout(order: CheckoutOrder): Promise<CheckoutStarted> {
    const references = { purchaseId: order.purchaseId, userId: order.userId };
    const session = await this.#stripe.checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: 'usd',
              unit_amount: order.amountCents,
              product_data: { name: `Exploit Grid ${creditsLabel(order.creditsCents)} (${order.tier})` },
            },
          },
        ],
        client_reference_id: order.purchaseId,
        customer_email: order.email,
        metadata: references,
        // Refunds and disputes name the PaymentIntent and its charge: they carry the references too.
        payment_intent_data: { metadata: references },
        success_url: `${this.#publicUrl}/plans?success=true&session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${this.#publicUrl}/plans?canceled=true`,
      },
      { idempotencyKey: `checkout-${order.purchaseId}` },
    );
    if (!session.url) throw new Error('Stripe answered a Checkout Session without a URL');
    return { providerRef: session.id, sessionId: session.id, checkoutUrl: session.url };
  }

  readWebhook(
    rawBody: Buffer,
    headers: Record<string, string | string[] | undefined>,
  ): Promise<PaymentEvent> {
    const signature = headers['stripe-signature'];
    if (typeof signature !== 'string' || signature === '')
      throw new WebhookRefused('Missing Stripe-Signature header.');
    refuseFutureTimestamp(signature, 't');
    let event: unknown;
    try {
      // Stripe's own check: HMAC-SHA256 of `${t}.${body}`, within the default tolerance (300 s).
      event = this.#stripe.webhooks.constructEvent(rawBody, signature, this.#webhookSecret);
    } catch {
      throw new WebhookRefused('Invalid Stripe signature.');
    }
    return Promise.resolve(readStripeEvent(event));
  }
}

const parseStripe = <T extends z.ZodType>(schema: T, value: unknown, what: string) =>
  parseWebhookPart('Stripe', schema, value, what);

/** A verified Stripe event as a PaymentEvent; throws WebhookRefused when its shape is not Stripe's. */
export function readStripeEvent(raw: unknown): PaymentEvent {
  const event = parseStripe(eventSchema, raw, 'event');
  const object = event.data.object;
  const at = (purchase: PurchaseRef, change: PaymentChange): PaymentEvent => ({
    id: event.id,
    type: event.type,
    purchase,
    change,
  });
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
    case 'checkout.session.async_payment_failed':
    case 'checkout.session.expired': {
      const session = parseStripe(sessionSchema, object, event.type);
      const purchase = {
        purchaseId: purchaseIdOrNull(session.client_reference_id ?? session.metadata?.purchaseId),
        providerRef: session.id,
      };
      if (event.type === 'checkout.session.expired')
        return at(purchase, { kind: 'closed', status: 'expired' });
      if (event.type === 'checkout.session.async_payment_failed')
        return at(purchase, { kind: 'closed', status: 'canceled' });
      // A delayed payment method completes the session unpaid; async_payment_succeeded follows.
      if (session.payment_status !== 'paid') return at(purchase, { kind: 'ignored' });
      return at(purchase, {
        kind: 'paid',
        paidCents: session.amount_total ?? null,
        discountCents: session.total_details?.amount_discount ?? null,
        currency: session.currency ?? null,
        paymentRef: session.payment_intent ?? null,
      });
    }
    case 'charge.refunded': {
      const charge = parseStripe(chargeSchema, object, event.type);
      return at(
        {
          purchaseId: purchaseIdOrNull(charge.metadata?.purchaseId),
          paymentRef: charge.payment_intent ?? null,
        },
        { kind: 'refunded', totalRefundedCents: charge.amount_refunded },
      );
    }
    case 'charge.dispute.created': {
      const dispute = parseStripe(disputeSchema, object, event.type);
      return at(
        { paymentRef: dispute.payment_intent ?? null },
        { kind: 'reversed', reversalId: dispute.id, cents: dispute.amount, chargeback: true },
      );
    }
    default:
      return at({}, { kind: 'ignored' });
  }
}
