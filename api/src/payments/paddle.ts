import { Environment, LogLevel, Paddle } from '@paddle/paddle-node-sdk';
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

export interface PaddleSettings {
  apiKey: string;
  webhookSecret: string;
  clientToken: string;
  environment: 'sandbox' | 'production';
  /** Base URL of another Paddle API (a local fake in tests). */
  apiUrl?: string | undefined;
  /** A catalog price of 1 USD a unit (quantity 5 to 1000); unset, each transaction carries its own price. */
  priceId?: string | undefined;
}

/** Paddle's ids: a prefix, an underscore and lowercase letters and digits. */
const paddleId = z.string().regex(/^[a-z]{2,10}_[a-z0-9]{1,100}$/, 'is not a Paddle id');
const amount = z
  .string()
  .regex(/^\d{1,15}$/, 'is not an amount')
  .transform(Number);
const customData = z.record(z.string(), z.unknown()).nullish();

const eventSchema = z.object({
  event_id: paddleId,
  event_type: z.string().regex(/^[a-z0-9_.]{1,100}$/, 'is not an event type'),
  data: z.record(z.string(), z.unknown()),
});
const transactionSchema = z.object({
  id: paddleId,
  custom_data: customData,
  currency_code: z.string().regex(/^[A-Z]{3}$/, 'is not a currency code'),
  details: z
    .object({ totals: z.object({ total: amount, tax: amount, discount: amount.nullish() }) })
    .nullish(),
});
const adjustmentSchema = z.object({
  id: paddleId,
  transaction_id: paddleId,
  action: z.string().max(40),
  status: z.string().max(40),
  type: z.string().max(20).nullish(),
  totals: z.object({ total: amount }),
});

/** Paddle Billing through the official SDK: a transaction per purchase, opened by Paddle.js on /checkout/paddle. */
export class PaddleGateway implements PaymentGateway {
  readonly name = 'paddle' as const;
  readonly failureMessage = COMMERCE_MESSAGES.paddleFailed;
  readonly #paddle: Paddle;
  readonly #settings: PaddleSettings;

  constructor(settings: PaddleSettings) {
    this.#settings = settings;
    this.#paddle = new Paddle(settings.apiKey, {
      // The SDK takes a base URL where it takes an environment's name.
      environment: (settings.apiUrl as Environment | undefined) ?? Environment[settings.environment],
      // Its logger writes request headers (the API key among them) at verbose: never.
      logLevel: LogLevel.none,
    });
  }

  async startCheckout(order: CheckoutOrder): Promise<CheckoutStarted> {
    const dollars = order.amountCents / 100;
    const transaction = await this.#paddle.transactions.create({
      items: this.#settings.priceId
        ? [{ priceId: this.#settings.priceId, quantity: dollars }]
        : [
            {
              quantity: 1,
              price: {
                name: creditsLabel(order.creditsCents),
                description: `Exploit Grid ${creditsLabel(order.creditsCents)} (${order.tier})`,
                unitPrice: { amount: String(order.amountCents), currencyCode: 'USD' },
                quantity: { minimum: 1, maximum: 1 },
                product: { name: 'Exploit Grid credits', taxCategory: 'standard' },
              },
            },
          ],
      currencyCode: 'USD',
      collectionMode: 'automatic',
      customData: { purchaseId: order.purchaseId, userId: order.userId },
    });
    if (!transaction.id) throw new Error('Paddle answered a transaction without an id');
    // Our checkout page opens Paddle.js on the transaction (spec section 3, checkout URL parameters).
    const query = new URLSearchParams({
      clientToken: this.#settings.clientToken,
      ...(this.#settings.priceId ? { priceId: this.#settings.priceId } : {}),
      transactionId: transaction.id,
      environment: this.#settings.environment,
      customerEmail: order.email,
      amount: String(dollars),
      successUrl: '/plans?success=true',
      cancelUrl: '/plans?canceled=true',
      sessionId: transaction.id,
    });
    return {
      providerRef: transaction.id,
      sessionId: transaction.id,
      checkoutUrl: `/checkout/paddle?${query}`,
    };
  }

  async readWebhook(
    rawBody: Buffer,
    headers: Record<string, string | string[] | undefined>,
  ): Promise<PaymentEvent> {
    const signature = headers['paddle-signature'];
    if (typeof signature !== 'string' || signature === '')
      throw new WebhookRefused('Missing Paddle-Signature header.');
    refuseFutureTimestamp(signature, 'ts');
    const body = rawBody.toString('utf8');
    try {
      // Paddle's own check: ts=...;h1=HMAC-SHA256(secret, `${ts}:${body}`), within the SDK's tolerance.
      await this.#paddle.webhooks.unmarshal(body, this.#settings.webhookSecret, signature);
    } catch (err) {
      throw new WebhookRefused(
        /signature/i.test((err as Error).message) ? 'Invalid Paddle signature.' : 'Unexpected Paddle event.',
      );
    }
    return readPaddleEvent(JSON.parse(body));
  }
}

const parsePaddle = <T extends z.ZodType>(schema: T, value: unknown, what: string) =>
  parseWebhookPart('Paddle', schema, value, what);

/** A verified Paddle event as a PaymentEvent; throws WebhookRefused when its shape is not Paddle's. */
export function readPaddleEvent(raw: unknown): PaymentEvent {
  const event = parsePaddle(eventSchema, raw, 'event');
  const at = (purchase: PurchaseRef, change: PaymentChange): PaymentEvent => ({
    id: event.event_id,
    type: event.event_type,
    purchase,
    change,
  });
  switch (event.event_type) {
    case 'transaction.paid':
    case 'transaction.completed':
    case 'transaction.canceled': {
      const transaction = parsePaddle(transactionSchema, event.data, event.event_type);
      const purchase = {
        purchaseId: purchaseIdOrNull(transaction.custom_data?.purchaseId),
        providerRef: transaction.id,
      };
      if (event.event_type === 'transaction.canceled')
        return at(purchase, { kind: 'closed', status: 'canceled' });
      return at(purchase, {
        kind: 'paid',
        paidCents: transaction.details?.totals.total ?? null,
        taxCents: transaction.details?.totals.tax ?? null,
        discountCents: transaction.details?.totals.discount ?? null,
        currency: transaction.currency_code.toLowerCase(),
        paymentRef: transaction.id,
      });
    }
    case 'adjustment.created':
    case 'adjustment.updated': {
      const adjustment = parsePaddle(adjustmentSchema, event.data, event.event_type);
      const purchase = { providerRef: adjustment.transaction_id };
      // Refunds wait for Paddle's approval (created pending, updated approved); chargebacks arrive approved.
      // Credits and chargeback warnings or reversals change no credits (docs/payments.md).
      const reverses = adjustment.action === 'refund' || adjustment.action === 'chargeback';
      if (!reverses || adjustment.status !== 'approved') return at(purchase, { kind: 'ignored' });
      return at(purchase, {
        kind: 'reversed',
        reversalId: adjustment.id,
        cents: adjustment.type === 'full' ? 'all' : adjustment.totals.total,
        chargeback: adjustment.action === 'chargeback',
      });
    }
    default:
      return at({}, { kind: 'ignored' });
  }
}
