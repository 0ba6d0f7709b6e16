import express, { type RequestHandler } from 'express';
import { z } from 'zod';
import { caller } from '../auth/middleware.ts';
import {
  checkoutRequest,
  checkoutResponseSchema,
  paymentStatusQuery,
  paymentStatusSchema,
  subscriptionConfigSchema,
} from '../contracts/index.ts';
import { ApiRouter } from '../http/route.ts';
import type { PaymentService } from './service.ts';

/** Plans, checkout and payment status: the signed-in player's side of buying credits. */
export function subscriptionRoutes(deps: {
  payments: PaymentService;
  requireAuth: RequestHandler;
}): ApiRouter {
  const before = [deps.requireAuth];
  return new ApiRouter()
    .route({
      method: 'get',
      path: '/subscription/config',
      summary:
        'The payment provider checkout goes through, whether payments are configured at all, and the BASIC ' +
        'daily limit (public: the pricing page shows it to visitors)',
      tags: ['payments'],
      response: subscriptionConfigSchema,
      handler: () => deps.payments.config(),
    })
    .route({
      method: 'post',
      path: '/subscription/checkout',
      summary: 'Start buying credits: writes a pending purchase, then opens a checkout at the provider',
      tags: ['payments'],
      before,
      errors: {
        401: 'Not signed in',
        429: 'Too many checkouts started',
        502: 'The payment provider could not start a checkout',
        503: 'Payments are not configured on this platform',
      },
      body: checkoutRequest,
      status: 201,
      response: checkoutResponseSchema,
      handler: ({ body, res }) => deps.payments.checkout(caller(res).userId, body),
    })
    .route({
      method: 'get',
      path: '/subscription/payment-status',
      summary:
        "Whether one of the caller's purchases was credited (its webhook landed), and their credits now",
      tags: ['payments'],
      before,
      errors: { 401: 'Not signed in' },
      query: paymentStatusQuery,
      response: paymentStatusSchema,
      handler: ({ query, res }) => deps.payments.status(caller(res).userId, query.sessionId),
    });
}

const receivedSchema = z.object({ received: z.literal(true) }).meta({ id: 'WebhookReceived' });

/**
 * The providers' webhooks: not signed in, but signed by the provider over the exact bytes of the body, so
 * they are mounted before the application's JSON parser (app.ts) and read the body raw. They sit outside the
 * per-user limits (no user calls them); a refused signature changes nothing.
 */
export function paymentWebhookRoutes(deps: { payments: PaymentService }): ApiRouter {
  // Providers' events are a few kilobytes; a refund list or line items do not come near this.
  const raw = express.raw({ type: () => true, limit: '256kb' });
  const router = new ApiRouter();
  for (const [provider, name, header] of [
    ['stripe', 'Stripe', 'Stripe-Signature'],
    ['paddle', 'Paddle', 'Paddle-Signature'],
  ] as const)
    router.route({
      method: 'post',
      path: `/payments/${provider}/webhook`,
      summary: `${name} events (called by ${name}, not by players)`,
      tags: ['payments'],
      before: [raw],
      rawBody: {
        contentType: 'application/json',
        description: `The provider's event, signed in the ${header} header over these exact bytes.`,
      },
      errors: {
        400: `Missing or invalid ${header}, or not an event of ${name}'s`,
        503: `Payments through ${name} are not configured on this platform`,
      },
      response: receivedSchema,
      handler: async ({ req }) => {
        await deps.payments.receiveWebhook(provider, req.body, req.headers);
        return { received: true as const };
      },
    });
  return router;
}
