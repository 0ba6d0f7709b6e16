import { z } from 'zod';
import { PADDLE_FAILED, STRIPE_FAILED, unknownProvider } from '../strings/plans.ts';

/**
 * POST /subscription/checkout's answer, read loosely on purpose: a provider this portal does not know, or a
 * missing URL, gets the spec's own message instead of a generic parse failure.
 */
export const checkoutAnswer = z.object({
  provider: z.string(),
  sessionId: z.string().nullish(),
  checkoutUrl: z.string().nullish(),
});
export type CheckoutAnswer = z.infer<typeof checkoutAnswer>;

export type CheckoutTarget = { url: string } | { error: string };

/**
 * Where the browser goes to pay (spec section 4, 'Purchase start'): Stripe's hosted page for stripe, our
 * /checkout/paddle page for paddle. Only http(s) addresses are followed; a relative one is resolved
 * against the portal.
 */
export function checkoutTargetOf(answer: CheckoutAnswer, origin: string): CheckoutTarget {
  switch (answer.provider) {
    case 'stripe': {
      const url = httpUrl(answer.checkoutUrl, origin);
      return url ? { url } : { error: STRIPE_FAILED };
    }
    case 'paddle': {
      const url = httpUrl(answer.checkoutUrl, origin);
      return url ? { url } : { error: PADDLE_FAILED };
    }
    default:
      return { error: unknownProvider(answer.provider) };
  }
}

function httpUrl(value: string | null | undefined, origin: string): string | null {
  if (!value) return null;
  try {
    const url = new URL(value, origin);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}
