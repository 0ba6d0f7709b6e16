/**
 * Accounts and sessions (core-app sections 2, 5, 7, 8). Request schemas are strict:
 * unknown fields are refused.
 */
import { z } from 'zod';

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

/**
 * A new password (sign-up, reset). Only its length is checked here, so that the portal can check it too; the
 * API also refuses one that is easy to guess (auth/password-strength.ts, docs/accounts.md).
 */
export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN, PASSWORD_TOO_SHORT)
  .max(PASSWORD_MAX, PASSWORD_TOO_LONG)
  .meta({
    description:
      '8 to 128 characters, and not easy to guess: common and breached passwords, words and names, keyboard ' +
      'patterns, dates, the handle, the email address and the name of the site are refused (400 ' +
      `"password: ${PASSWORD_TOO_GUESSABLE} <why> <what to do>")`,
  });
export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(EMAIL_MAX, EMAIL_INVALID)
  .pipe(z.email(EMAIL_INVALID));
export const handleSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{3,24}$/, HANDLE_RULE);

const utm = z.string().trim().max(200).optional().default('');

export const signupRequest = z
  .strictObject({
    handle: handleSchema,
    email: emailSchema,
    password: passwordSchema,
    utmSource: utm,
    utmMedium: utm,
    utmCampaign: utm,
    referralCode: utm,
  })
  .meta({ id: 'SignupRequest' });
export type SignupRequest = z.input<typeof signupRequest>;

export const loginRequest = z
  .strictObject({
    email: emailSchema,
    // Length is checked at signup and reset; here only bounded, so old passwords still work.
    password: z.string().min(1, 'Enter your password.').max(PASSWORD_MAX, PASSWORD_TOO_LONG),
  })
  .meta({ id: 'LoginRequest' });
export type LoginRequest = z.input<typeof loginRequest>;

export const emailRequest = z.strictObject({ email: emailSchema }).meta({ id: 'EmailRequest' });
export type EmailRequest = z.input<typeof emailRequest>;

export const resetPasswordRequest = z
  .strictObject({ token: z.string().min(1).max(200), password: passwordSchema })
  .meta({ id: 'ResetPasswordRequest' });
export type ResetPasswordRequest = z.input<typeof resetPasswordRequest>;

export const socialExchangeRequest = z
  .strictObject({ code: z.string().min(1).max(200) })
  .meta({ id: 'SocialExchangeRequest' });
export type SocialExchangeRequest = z.input<typeof socialExchangeRequest>;

export const accessTokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    /** Seconds until the access token expires. */
    expires_in: z.number().int(),
  })
  .meta({ id: 'AccessToken' });
export type AccessTokenResponse = z.infer<typeof accessTokenResponse>;

export const messageResponse = z.object({ message: z.string() }).meta({ id: 'Message' });
export type MessageResponse = z.infer<typeof messageResponse>;

export const SOCIAL_PROVIDERS = ['google', 'github', 'linkedin'] as const;
export type SocialProvider = (typeof SOCIAL_PROVIDERS)[number];
export const providersResponse = z
  .object({ providers: z.array(z.enum(SOCIAL_PROVIDERS)) })
  .meta({ id: 'AuthProviders' });
export type ProvidersResponse = z.infer<typeof providersResponse>;

/** Query of `/login` after email verification (core-app section 8). */
export const VERIFY_REASON_EXPIRED_OR_INVALID = 'expired_or_invalid';
