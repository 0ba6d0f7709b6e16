/** The query of /checkout/paddle (commerce-and-content section 3, 'Checkout URL parameters'). */
export type PaddleEnvironment = 'sandbox' | 'production';

export type CheckoutParams = {
  /** Paddle's client-side token. */
  clientToken: string;
  priceId: string | null;
  transactionId: string | null;
  environment: PaddleEnvironment;
  customerEmail: string;
  customerId: string | null;
  /** The purchase in dollars. */
  amount: number;
  /** Absolute, and on this site. */
  successUrl: string;
  cancelUrl: string;
  sessionId: string | null;
};

export const DEFAULT_SUCCESS_PATH = '/plans?success=true';
export const DEFAULT_CANCEL_PATH = '/plans?canceled=true';
/** Where an error sends the player (spec section 8: a return to /plans after 5 s). */
export const ERROR_RETURN_PATH = '/plans';

/**
 * The checkout's parameters, or null when a required one is missing: clientToken, customerEmail, amount, and
 * priceId or transactionId (spec section 5). The environment defaults to sandbox. Success and cancel URLs
 * are made absolute (spec section 4, rule 7); one that leads off this site falls back to the default, so a
 * crafted link cannot send a player from a payment to another site.
 */
export function parseCheckoutParams(search: URLSearchParams, origin: string): CheckoutParams | null {
  const value = (name: string) => {
    const raw = search.get(name)?.trim();
    return raw ? raw : null;
  };
  const clientToken = value('clientToken');
  const customerEmail = value('customerEmail');
  const priceId = value('priceId');
  const transactionId = value('transactionId');
  const amount = Number(value('amount') ?? Number.NaN);
  if (
    !clientToken ||
    !customerEmail ||
    !(priceId || transactionId) ||
    !(Number.isFinite(amount) && amount > 0)
  )
    return null;
  return {
    clientToken,
    priceId,
    transactionId,
    environment: value('environment') === 'production' ? 'production' : 'sandbox',
    customerEmail,
    customerId: value('customerId'),
    amount,
    successUrl: sameSiteUrl(value('successUrl'), origin) ?? new URL(DEFAULT_SUCCESS_PATH, origin).href,
    cancelUrl: sameSiteUrl(value('cancelUrl'), origin) ?? new URL(DEFAULT_CANCEL_PATH, origin).href,
    sessionId: value('sessionId'),
  };
}

/** `url` made absolute against `origin` ('/plans' → 'https://grid.example/plans'), if it stays on this site. */
export function sameSiteUrl(url: string | null, origin: string): string | null {
  if (!url) return null;
  try {
    const absolute = new URL(url, origin);
    return absolute.origin === new URL(origin).origin ? absolute.href : null;
  } catch {
    return null;
  }
}
