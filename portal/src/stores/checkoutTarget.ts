import type { Parser } from '../api/http.ts';
import { PADDLE_FAILED, STRIPE_FAILED, unknownProvider } from '../strings/plans.ts';

export type CheckoutAnswer = { provider: string; sessionId?: string | null; checkoutUrl?: string | null };

/**
 * POST /subscription/checkout's answer, read loosely on purpose: a provider this portal does not know, or a
 * missing URL, gets the spec's own message instead of a generic parse failure. Read without zod, which the
 * plans' code (/pricing too) does not load.
 */
export const checkoutAnswer: Parser<CheckoutAnswer> = {
  parse(data) {
    const answer = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
    const { provider, sessionId, checkoutUrl } = answer;
    if (typeof provider !== 'string') throw new Error('POST /subscription/checkout: no provider');
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    return { provider, sessionId: text(sessionId), checkoutUrl: text(checkoutUrl) };
  },
};

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
