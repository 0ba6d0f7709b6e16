/**
 * The contracts' plain values: bases, limits, rules and texts, with no zod. The public pages import them from
 * `@exploit-grid/api/contracts/constants`, so that a visitor of /login or /pricing does not download zod and
 * the schemas; the schemas' modules import them from here, and the barrel exports them all.
 */
export * from './tiers.ts';

export const API_BASE = '/api/v1';
export const AI_API_BASE = '/api/ai/v1';

// Accounts and sessions (auth.ts).

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const HANDLE_MIN = 3;
export const HANDLE_MAX = 24;
export const EMAIL_MAX = 254;

export const PASSWORD_TOO_SHORT = 'Password must be at least 8 characters long.';
export const PASSWORD_TOO_LONG = 'Password must be at most 128 characters long.';
export const PASSWORDS_DO_NOT_MATCH = 'Passwords do not match.';
/**
 * The first sentence of the 400 for a new password that is long enough but easy to guess; the API adds why
 * and what to do (auth/password-strength.ts).
 */
export const PASSWORD_TOO_GUESSABLE = 'Password is too easy to guess.';
export const HANDLE_RULE = 'Handle must be 3 to 24 letters, digits, _ or -.';
export const EMAIL_INVALID = 'Enter a valid email address.';

/** The message of the 403 a login gets before the email is verified. */
export const EMAIL_NOT_VERIFIED = 'EMAIL_NOT_VERIFIED';
export const INVALID_CREDENTIALS = 'Invalid credentials.';
export const INVALID_OR_EXPIRED_TOKEN = 'Invalid or expired token.';
/** The message of the 403 a banned account's box calls get (its VPN calls say that access is revoked). */
export const ACCOUNT_BANNED = 'This account has been banned.';

/** Answers that never reveal whether an account exists. */
export const SIGNUP_ACCEPTED = 'Check your inbox: we sent a verification link to that address.';
export const FORGOT_PASSWORD_ACCEPTED =
  'If an account exists for that address, a password reset link is on its way.';
export const RESEND_ACCEPTED = 'If that address is waiting for verification, a new link is on its way.';
export const PASSWORD_RESET_DONE = 'Password changed. Sign in with your new password.';

/**
 * Seconds between two mails of one kind (verification, password reset) to one address, whether or not it has
 * an account; sooner, the call answers 429 with Retry-After. Sign-up counts as a verification mail.
 */
export const MAIL_COOLDOWN_SECONDS = 60;

export const SOCIAL_PROVIDERS = ['google', 'github', 'linkedin'] as const;
export type SocialProvider = (typeof SOCIAL_PROVIDERS)[number];

/** Query of `/login` after email verification (core-app section 8). */
export const VERIFY_REASON_EXPIRED_OR_INVALID = 'expired_or_invalid';

/**
 * Consent at sign-up (commerce-and-content sections 5, 9): a new account, by password or by a social provider,
 * confirms the minimum age and accepts the Terms of Service and the Privacy Policy of this revision (their
 * last-updated date, shown on both pages); the account records when, and which revision (docs/legal.md).
 */
export const MINIMUM_AGE = 13;
export const LEGAL_REVISION = '2026-11-27';
export const AGE_CONFIRMATION_REQUIRED = 'Confirm that you are 13 or older.';
export const TERMS_ACCEPTANCE_REQUIRED = 'Accept the Terms of Service and the Privacy Policy.';
/**
 * `GET /auth/{provider}?consent=true`: the sign-up page's social buttons carry the visitor's consent into the
 * OAuth state. A social sign-in without it that would create an account creates nothing and goes to
 * `/signup?reason=social_consent_required`.
 */
export const SOCIAL_CONSENT_PARAM = 'consent';
export const SOCIAL_CONSENT_REQUIRED_REASON = 'social_consent_required';

// The signed-in user (users.ts).

export const TIERS = ['BASIC', 'HACKER', 'ELITE', 'TEAM'] as const;
export type Tier = (typeof TIERS)[number];

export const DEFAULT_MMR = 1000;

// Credits and gifts (commerce.ts).

/** Payment providers; `stripe` is the default when both are configured. */
export const PAYMENT_PROVIDERS = ['stripe', 'paddle'] as const;
export type PaymentProvider = (typeof PAYMENT_PROVIDERS)[number];

/** Purchase amounts in whole US dollars (spec section 9). */
export const PURCHASE_MIN_USD = 5;
export const PURCHASE_MAX_USD = 1000;
export const PURCHASE_DEFAULT_USD = 20;
export const PURCHASE_QUICK_PICKS_USD = [10, 20, 50, 100] as const;
/** Advertised price: 1 USD buys 100 credits. */
export const CREDITS_PER_USD = 100;

/** Tiers that can be bought today; the others are shown as 'coming soon'. */
export const PURCHASABLE_TIERS = ['BASIC'] as const;

/** Texts (spec section 8, and this platform's own where the spec is silent). */
export const COMMERCE_MESSAGES = {
  purchaseCanceled: 'Purchase process was canceled.',
  purchaseSucceeded: 'Purchase successful! Your credits and tier have been updated.',
  purchaseFailed: 'Failed to start purchase.',
  stripeFailed: 'Failed to initialize Stripe checkout',
  paddleFailed: 'Failed to get Paddle checkout URL',
  unknownProvider: (provider: string) => `Unknown payment provider: ${provider}`,
  paymentsDisabled:
    'Payments are not configured on this platform. Ask its operators for a gift token and redeem it on the Redeem Gift page.',
  tierComingSoon: 'Only the BASIC tier can be bought today; the others are coming soon.',
  purchaseNotFound: 'Purchase not found.',
  redeemFailed: 'Failed to redeem token',
  redeemInvalid: 'Invalid or already redeemed token',
  redeemed: (credits: number) => `Redeemed ${credits.toFixed(2)} credits`,
  checkoutMissing: 'Missing required checkout parameters',
  paddleLoadFailed: 'Failed to load Paddle.js',
  checkoutInitFailed: 'Failed to initialize checkout',
  checkoutError: (message?: string) => `Checkout error: ${message || 'Unknown error'}`,
  paymentSucceeded: (credits: number) => `Payment successful! Added ${credits} credits to your account.`,
  paymentCompleted: 'Payment completed successfully!',
  paymentCancelled: 'Payment cancelled',
} as const;
