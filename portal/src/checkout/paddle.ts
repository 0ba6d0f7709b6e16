import { initializePaddle, type PaddleEventData } from '@paddle/paddle-js';
import type { CheckoutFrame, CheckoutOpenRequest, PaddleLoader } from './PaddleCheckout.ts';

/**
 * Paddle.js through Paddle's own wrapper: `initializePaddle` adds the script from Paddle's CDN when called,
 * and this module is imported by the checkout page alone, so no other page loads it (the server allows
 * Paddle's hosts in the security policy of /checkout/paddle only).
 */
export const paddleLoader: PaddleLoader = {
  async load({ environment, token, onEvent }) {
    const paddle = await initializePaddle({
      environment,
      token,
      eventCallback: (event: PaddleEventData) =>
        onEvent({
          name: event.name === undefined ? undefined : String(event.name),
          detail: event.detail ?? undefined,
        }),
    });
    if (!paddle) return null;
    return {
      // The wrapper only warns when Paddle.Initialize throws; then no event will come.
      eventsSupported: paddle.Initialized === true,
      open: (request: CheckoutOpenRequest) => {
        const common = {
          customer: { email: request.email },
          customData: request.customData,
          // No discount field: a code typed there would pay less than the purchase; the API holds such payments.
          settings: { displayMode: 'overlay', theme: 'dark', showAddDiscounts: false },
        } as const;
        if (request.transactionId) paddle.Checkout.open({ ...common, transactionId: request.transactionId });
        else paddle.Checkout.open({ ...common, items: [{ priceId: request.priceId ?? '', quantity: 1 }] });
      },
    };
  },
};

/** Paddle's overlay checkout is one iframe it adds to the page and removes when the checkout closes. */
const FRAME_SELECTOR = 'iframe[name="paddle_frame"], iframe.paddle-frame';

export const paddleFrame: CheckoutFrame = {
  present: () => document.querySelector(FRAME_SELECTOR) !== null,
  onActivity(listener) {
    window.addEventListener('focus', listener);
    window.addEventListener('blur', listener);
    document.addEventListener('visibilitychange', listener);
    return () => {
      window.removeEventListener('focus', listener);
      window.removeEventListener('blur', listener);
      document.removeEventListener('visibilitychange', listener);
    };
  },
};
