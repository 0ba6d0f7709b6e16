import { COMMERCE_MESSAGES } from '@exploit-grid/api/contracts/constants';

/** The Paddle checkout page (commerce-and-content sections 2, 4, 8, 9). */
export const CHECKOUT_TITLE = 'Checkout';
export const CHECKOUT_INITIALIZING = 'Initializing secure checkout…';
export const CHECKOUT_OPEN = 'Complete your payment in the checkout window.';
export const CHECKOUT_CHECKING = 'Checking payment status…';
export const CHECKOUT_SUCCESS = 'Payment successful';
export const CHECKOUT_CANCELLED = 'Payment cancelled';
export const CHECKOUT_ERROR = 'Checkout failed';
export const RETURNING = 'Taking you back…';
export const BACK_TO_PLANS = 'Back to Plans';

// Spec section 8, verbatim.
export const CHECKOUT_MISSING = COMMERCE_MESSAGES.checkoutMissing;
export const PADDLE_LOAD_FAILED = COMMERCE_MESSAGES.paddleLoadFailed;
export const CHECKOUT_INIT_FAILED = COMMERCE_MESSAGES.checkoutInitFailed;
export const checkoutError = COMMERCE_MESSAGES.checkoutError;
export const paymentSucceeded = COMMERCE_MESSAGES.paymentSucceeded;
export const PAYMENT_COMPLETED = COMMERCE_MESSAGES.paymentCompleted;
export const PAYMENT_CANCELLED = COMMERCE_MESSAGES.paymentCancelled;
