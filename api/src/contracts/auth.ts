/**
 * Accounts and sessions (core-app sections 2, 5, 7, 8). Request schemas are strict:
 * unknown fields are refused.
 */
import { z } from 'zod';
import {
  AGE_CONFIRMATION_REQUIRED,
  EMAIL_INVALID,
  EMAIL_MAX,
  HANDLE_RULE,
  PASSWORD_MAX,
  PASSWORD_MIN,
  PASSWORD_TOO_GUESSABLE,
  PASSWORD_TOO_LONG,
  PASSWORD_TOO_SHORT,
  SOCIAL_PROVIDERS,
  TERMS_ACCEPTANCE_REQUIRED,
} from './constants.ts';

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
    // Both must be the JSON value true: a missing field, false or "true" is refused and nothing is created.
    ageConfirmed: z
      .literal(true, AGE_CONFIRMATION_REQUIRED)
      .meta({ description: 'The visitor confirms they are 13 or older. Must be true.' }),
    termsAccepted: z.literal(true, TERMS_ACCEPTANCE_REQUIRED).meta({
      description:
        'The visitor accepts the Terms of Service and the Privacy Policy (their current revision). Must be true.',
    }),
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

export const providersResponse = z
  .object({ providers: z.array(z.enum(SOCIAL_PROVIDERS)) })
  .meta({ id: 'AuthProviders' });
export type ProvidersResponse = z.infer<typeof providersResponse>;
