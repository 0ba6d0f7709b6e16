import { createHmac, randomBytes } from 'node:crypto';
import Stripe from 'stripe';

/** Keys of the test platforms' payment providers (fakes: stripe-mock and testing/paddle-fake.ts). */
export const STRIPE_TEST = { secretKey: 'sk_test_exploitgrid', webhookSecret: 'whsec_exploitgridtests' };
export const PADDLE_TEST = {
  apiKey: 'pdl_sdbx_apikey_01exploitgridtests',
  webhookSecret: 'pdl_ntfset_01exploitgridtests',
  clientToken: 'test_exploitgridclienttoken',
};

const hex = (n: number) => randomBytes(n).toString('hex');

/** A Stripe event envelope as Stripe posts it (API version of the SDK), serialized. */
export function stripeEvent(type: string, object: Record<string, unknown>, id = `evt_${hex(12)}`): string {
  return JSON.stringify({
    id,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  });
}

/** The Stripe-Signature header Stripe would send, made by the SDK's own test helper. */
export function signStripe(payload: string, options: { secret?: string; timestamp?: number } = {}): string {
  return new Stripe(STRIPE_TEST.secretKey).webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? STRIPE_TEST.webhookSecret,
    ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
  });
}

/** A Checkout Session as checkout.session.* events carry it. */
export function stripeSession(
  checkout: { sessionId: string; purchaseId: string; userId: string; amountCents: number },
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: checkout.sessionId,
    object: 'checkout.session',
    amount_subtotal: checkout.amountCents,
    amount_total: checkout.amountCents,
    client_reference_id: checkout.purchaseId,
    currency: 'usd',
    customer: null,
    customer_details: { email: 'player@example.test' },
    livemode: false,
    metadata: { purchaseId: checkout.purchaseId, userId: checkout.userId },
    mode: 'payment',
    payment_intent: `pi_${checkout.purchaseId.replace(/-/g, '').slice(0, 24)}`,
    payment_status: 'paid',
    status: 'complete',
    ...overrides,
  };
}

/** A charge as charge.refunded carries it: `amountRefunded` is Stripe's running total. */
export function stripeCharge(
  session: Record<string, unknown>,
  amountRefunded: number,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: `ch_${String(session.payment_intent).slice(3)}`,
    object: 'charge',
    amount: session.amount_total,
    amount_captured: session.amount_total,
    amount_refunded: amountRefunded,
    currency: 'usd',
    metadata: session.metadata,
    paid: true,
    payment_intent: session.payment_intent,
    refunded: amountRefunded === session.amount_total,
    status: 'succeeded',
    ...overrides,
  };
}

/** A dispute as charge.dispute.created carries it. */
export function stripeDispute(session: Record<string, unknown>, amount: number): Record<string, unknown> {
  return {
    id: `dp_${hex(12)}`,
    object: 'dispute',
    amount,
    charge: `ch_${String(session.payment_intent).slice(3)}`,
    currency: 'usd',
    metadata: {},
    payment_intent: session.payment_intent,
    reason: 'fraudulent',
    status: 'needs_response',
  };
}

/** A Paddle notification as Paddle posts it, serialized. */
export function paddleEvent(type: string, data: Record<string, unknown>, id = `evt_01${hex(12)}`): string {
  return JSON.stringify({
    event_id: id,
    event_type: type,
    occurred_at: new Date().toISOString(),
    notification_id: `ntf_01${hex(12)}`,
    data,
  });
}

/** Paddle's Paddle-Signature header: ts=<unix seconds>;h1=HMAC-SHA256(secret, `${ts}:${body}`). */
export function signPaddle(body: string, options: { secret?: string; timestamp?: number } = {}): string {
  const ts = options.timestamp ?? Math.floor(Date.now() / 1000);
  const h1 = createHmac('sha256', options.secret ?? PADDLE_TEST.webhookSecret)
    .update(`${ts}:${body}`)
    .digest('hex');
  return `ts=${ts};h1=${h1}`;
}

/** A Paddle adjustment (refund or chargeback) of a transaction. */
export function paddleAdjustment(
  transactionId: string,
  options: { action: 'refund' | 'chargeback'; status: string; total: number; full?: boolean; id?: string },
): Record<string, unknown> {
  return {
    id: options.id ?? `adj_01${hex(12)}`,
    action: options.action,
    type: options.full ? 'full' : 'partial',
    transaction_id: transactionId,
    subscription_id: null,
    customer_id: `ctm_01${hex(12)}`,
    reason: 'requested by the player',
    currency_code: 'USD',
    status: options.status,
    items: [],
    totals: {
      subtotal: String(options.total),
      tax: '0',
      total: String(options.total),
      fee: '0',
      earnings: String(options.total),
      currency_code: 'USD',
    },
    payout_totals: null,
    created_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
  };
}

/** Posts a webhook body as the provider would: raw bytes, its signature header. */
export async function postWebhook(
  baseUrl: string,
  provider: 'stripe' | 'paddle',
  body: string,
  signature: string | null,
): Promise<{ status: number; body: Record<string, unknown> | null }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== null)
    headers[provider === 'stripe' ? 'stripe-signature' : 'paddle-signature'] = signature;
  const res = await fetch(`${baseUrl}/api/v1/payments/${provider}/webhook`, {
    method: 'POST',
    headers,
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}
