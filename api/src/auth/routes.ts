import type { Request, Response } from 'express';
import cookieParser from 'cookie-parser';
import { z } from 'zod';
import {
  API_BASE,
  FORGOT_PASSWORD_ACCEPTED,
  PASSWORD_RESET_DONE,
  RESEND_ACCEPTED,
  SIGNUP_ACCEPTED,
  accessTokenResponse,
  emailRequest,
  loginRequest,
  messageResponse,
  providersResponse,
  resetPasswordRequest,
  signupRequest,
  socialExchangeRequest,
  type SocialProvider,
} from '../contracts/index.ts';
import { HttpError } from '../http/errors.ts';
import { ApiRouter } from '../http/route.ts';
import { SOCIAL_BINDING_COOKIE, clearSocialBindingCookie } from './social.ts';
import type { AuthService, ClientContext, IssuedSession } from './service.ts';

export const REFRESH_COOKIE = 'eg_refresh';
const REFRESH_COOKIE_PATH = `${API_BASE}/auth`;

export function clientContext(req: Request): ClientContext {
  return { ip: req.ip ?? 'unknown', userAgent: req.get('user-agent') };
}

/** The refresh token travels only in an httpOnly, SameSite=Strict cookie scoped to /api/v1/auth. */
function setRefreshCookie(res: Response, session: IssuedSession, secure: boolean) {
  res.cookie(REFRESH_COOKIE, session.refreshToken, {
    httpOnly: true,
    secure,
    sameSite: 'strict',
    path: REFRESH_COOKIE_PATH,
    expires: session.refreshExpiresAt,
  });
}

function clearRefreshCookie(res: Response, secure: boolean) {
  res.clearCookie(REFRESH_COOKIE, { httpOnly: true, secure, sameSite: 'strict', path: REFRESH_COOKIE_PATH });
}

const tokenAnswer = (session: IssuedSession) => ({
  access_token: session.accessToken,
  token_type: 'Bearer' as const,
  expires_in: session.expiresIn,
});

export function authRoutes(deps: {
  auth: AuthService;
  secureCookies: boolean;
  enabledProviders: () => SocialProvider[];
}): ApiRouter {
  const { auth, secureCookies } = deps;
  const cookies = cookieParser();
  const tags = ['auth'];
  return new ApiRouter()
    .route({
      method: 'post',
      path: '/auth/signup',
      summary: 'Create an account; a verification link is mailed',
      tags,
      body: signupRequest,
      response: messageResponse,
      status: 201,
      errors: { 409: 'Handle is already taken', 429: 'Too many attempts' },
      handler: async ({ body, req }) => {
        await auth.signup(body, clientContext(req));
        return { message: SIGNUP_ACCEPTED };
      },
    })
    .route({
      method: 'get',
      path: '/auth/verify-email',
      summary: 'Follow the link from the verification mail; redirects to /login',
      tags,
      // Links pass through mail clients and trackers that add parameters: anything odd is
      // a failed verification (a redirect), never a JSON error page.
      query: z.looseObject({ token: z.string().max(200).optional().catch(undefined) }),
      status: 302,
      handler: async ({ query, res }) => {
        res.redirect(302, await auth.verifyEmail(query.token));
      },
    })
    .route({
      method: 'post',
      path: '/auth/login',
      summary: 'Sign in with email and password',
      tags,
      body: loginRequest,
      response: accessTokenResponse,
      errors: { 401: 'Invalid credentials', 403: 'EMAIL_NOT_VERIFIED', 429: 'Too many attempts' },
      handler: async ({ body, req, res }) => {
        const session = await auth.login(body.email, body.password, clientContext(req));
        setRefreshCookie(res, session, secureCookies);
        return tokenAnswer(session);
      },
    })
    .route({
      method: 'post',
      path: '/auth/refresh',
      summary: 'Exchange the refresh cookie for a new access token (rotates the cookie)',
      tags,
      before: [cookies],
      response: accessTokenResponse,
      errors: { 401: 'No valid refresh token' },
      handler: async ({ req, res }) => {
        try {
          const session = await auth.refresh(
            req.cookies?.[REFRESH_COOKIE] as string | undefined,
            clientContext(req),
          );
          setRefreshCookie(res, session, secureCookies);
          return tokenAnswer(session);
        } catch (err) {
          // A dead token is cleared; a passing failure (a 5xx) must not sign anyone out.
          if (err instanceof HttpError && err.statusCode === 401) clearRefreshCookie(res, secureCookies);
          throw err;
        }
      },
    })
    .route({
      method: 'post',
      path: '/auth/logout',
      summary: 'End the session of the refresh cookie',
      tags,
      before: [cookies],
      status: 204,
      handler: async ({ req, res }) => {
        await auth.logout(req.cookies?.[REFRESH_COOKIE] as string | undefined);
        clearRefreshCookie(res, secureCookies);
      },
    })
    .route({
      method: 'post',
      path: '/auth/forgot-password',
      summary: 'Mail a password reset link (same answer whether or not the account exists)',
      tags,
      body: emailRequest,
      response: messageResponse,
      errors: {
        429: 'Too many attempts, or a link was requested for this address less than a minute ago',
      },
      handler: async ({ body, req }) => {
        await auth.forgotPassword(body.email, clientContext(req));
        return { message: FORGOT_PASSWORD_ACCEPTED };
      },
    })
    .route({
      method: 'post',
      path: '/auth/reset-password',
      summary: 'Set a new password with the token from the reset mail; ends every session',
      tags,
      body: resetPasswordRequest,
      response: messageResponse,
      errors: { 429: 'Too many attempts' },
      handler: async ({ body, req }) => {
        await auth.resetPassword(body.token, body.password, clientContext(req));
        return { message: PASSWORD_RESET_DONE };
      },
    })
    .route({
      method: 'post',
      path: '/auth/resend-verification',
      summary: 'Mail a new verification link (same answer whether or not the account exists)',
      tags,
      body: emailRequest,
      response: messageResponse,
      errors: {
        429: 'Too many attempts, or a link was requested for this address less than a minute ago',
      },
      handler: async ({ body, req }) => {
        await auth.resendVerification(body.email, clientContext(req));
        return { message: RESEND_ACCEPTED };
      },
    })
    .route({
      method: 'get',
      path: '/auth/providers',
      summary: 'Social sign-in providers that are configured',
      tags,
      response: providersResponse,
      handler: () => ({ providers: deps.enabledProviders() }),
    })
    .route({
      method: 'post',
      path: '/auth/social/exchange',
      summary: 'Exchange the single-use code from a social sign-in redirect for a session',
      tags,
      before: [cookies],
      body: socialExchangeRequest,
      response: accessTokenResponse,
      errors: { 401: 'Invalid or expired code, or another browser' },
      handler: async ({ body, req, res }) => {
        const binding = req.cookies?.[SOCIAL_BINDING_COOKIE] as string | undefined;
        const session = await auth.exchangeSocialCode(body.code, binding, clientContext(req));
        clearSocialBindingCookie(res, secureCookies);
        setRefreshCookie(res, session, secureCookies);
        return tokenAnswer(session);
      },
    });
}
