import type { HelmetOptions } from 'helmet';

type Directives = Record<string, string[] | null>;

/** The portal's page that runs Paddle.js (portal/src/pages/CheckoutPaddlePage.tsx). */
export const PADDLE_CHECKOUT_PATH = '/checkout/paddle';

/**
 * Paddle Billing's overlay checkout (Paddle.js v2, loaded by @paddle/paddle-js): the script and its styles
 * and images from Paddle's CDN, the checkout frame from the live or the sandbox checkout host (the checkout
 * URL chooses the environment), and Paddle.js's own calls to its checkout service. Nothing else: the card
 * form runs inside Paddle's frame, under Paddle's own policy.
 */
export const PADDLE_SOURCES = {
  'script-src': ['https://cdn.paddle.com'],
  'style-src': ['https://cdn.paddle.com'],
  'img-src': ['https://cdn.paddle.com'],
  'frame-src': ['https://buy.paddle.com', 'https://sandbox-buy.paddle.com'],
  'connect-src': ['https://checkout-service.paddle.com', 'https://sandbox-checkout-service.paddle.com'],
} as const satisfies Directives;

/** The policy of every portal page and API answer: the portal's own origin, nothing third-party. */
export function portalDirectives(secure: boolean): Directives {
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    // MUI (emotion) injects <style> elements at run time.
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:', 'blob:'],
    'font-src': ["'self'", 'data:'],
    'connect-src': ["'self'"],
    // three.js (the globe) may build workers from blobs.
    'worker-src': ["'self'", 'blob:'],
    'frame-ancestors': ["'none'"],
    'upgrade-insecure-requests': secure ? [] : null,
  };
}

/**
 * The portal's policy plus Paddle's hosts: sent with the document of /checkout/paddle only. A directive the
 * portal leaves to default-src starts from that ('self').
 */
export function paddleCheckoutDirectives(secure: boolean): Directives {
  const directives = portalDirectives(secure);
  for (const [name, sources] of Object.entries(PADDLE_SOURCES))
    directives[name] = [...(directives[name] ?? ["'self'"]), ...sources];
  return directives;
}

type OpenerPolicy = 'same-origin' | 'same-origin-allow-popups';

/** helmet's options around a set of directives; the rest of helmet's defaults stay. */
export function helmetOptions(
  directives: Directives,
  secure: boolean,
  openerPolicy: OpenerPolicy = 'same-origin',
): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: true, directives },
    strictTransportSecurity: secure,
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: { policy: openerPolicy },
  };
}
