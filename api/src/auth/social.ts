import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import cookieParser from 'cookie-parser';
import { Router, type Request, type Response } from 'express';
import passport, { type Profile } from 'passport';
import { Strategy as GitHubStrategy } from 'passport-github2';
import { Strategy as GoogleStrategy } from 'passport-google-oauth20';
import OAuth2Strategy from 'passport-oauth2';
import {
  API_BASE,
  LEGAL_REVISION,
  SOCIAL_CONSENT_PARAM,
  SOCIAL_CONSENT_REQUIRED_REASON,
  SOCIAL_PROVIDERS,
  emailSchema,
  type SocialProvider,
} from '../contracts/index.ts';
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import type { Logger } from '../logger.ts';
import type { AuthService, Welcome } from './service.ts';
import { newToken } from './tokens.ts';

/** What a provider tells us about the person who signed in. */
export interface SocialProfile {
  provider: SocialProvider;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  /** A name to derive a handle from for a new account. */
  nameHint: string;
}

const STATE_COOKIE = 'eg_oauth_state';
/** Binds a sign-in code to the browser that came back from the provider (login CSRF). */
export const SOCIAL_BINDING_COOKIE = 'eg_social_binding';
const STATE_TTL_MS = 10 * 60 * 1000;
export const SOCIAL_FAILURE_REDIRECT = '/login?verified=false&reason=social_sign_in_failed';
/** A social sign-in that would have made an account without the sign-up page's consent: nothing was made. */
export const SOCIAL_CONSENT_REDIRECT = `/signup?reason=${SOCIAL_CONSENT_REQUIRED_REASON}`;
/** The end of an OAuth state whose sign-in began with the visitor's consent (the sign-up page's buttons). */
const CONSENT_STATE_SUFFIX = '.consent';

/**
 * Whether the sign-in that came back with this state began with consent. Only called once passport has
 * checked the state against the httpOnly cookie set when the sign-in began, so only this server wrote it: the
 * consent cannot be added on the way back. (Like any sign-in, one can be started by a link to
 * `/auth/{provider}?consent=true`; the provider then still shows the visitor whose account it is.)
 */
export const stateCarriesConsent = (state: unknown): boolean =>
  typeof state === 'string' && state.endsWith(CONSENT_STATE_SUFFIX);

/**
 * The OAuth2 `state` of passport-oauth2 kept in a short-lived httpOnly cookie instead of a
 * server session: the API stays stateless. SameSite=Lax, because the provider's redirect
 * back is a cross-site top-level navigation.
 */
class CookieStateStore {
  readonly #secure: boolean;
  constructor(secure: boolean) {
    this.#secure = secure;
  }

  store(req: Request, _meta: unknown, callback: (err: Error | null, state?: string) => void): void {
    // Consent counts only from the sign-up page itself, where the visitor ticked both boxes: a browser says so
    // with Sec-Fetch-Site. A link from any other site (or a browser that does not say) carries none, and a new
    // account is then refused and sent to /signup.
    const consent = req.query[SOCIAL_CONSENT_PARAM] === 'true' && req.get('sec-fetch-site') === 'same-origin';
    // base64url has no '.', so the suffix cannot be part of the random token.
    const state = `${newToken(24)}${consent ? CONSENT_STATE_SUFFIX : ''}`;
    req.res!.cookie(STATE_COOKIE, state, {
      httpOnly: true,
      secure: this.#secure,
      sameSite: 'lax',
      path: `${API_BASE}/auth`,
      maxAge: STATE_TTL_MS,
    });
    callback(null, state);
  }

  verify(
    req: Request,
    provided: string,
    callback: (err: Error | null, ok: boolean, info?: unknown) => void,
  ): void {
    const expected = (req.cookies as Record<string, string> | undefined)?.[STATE_COOKIE];
    req.res!.clearCookie(STATE_COOKIE, {
      httpOnly: true,
      secure: this.#secure,
      sameSite: 'lax',
      path: `${API_BASE}/auth`,
    });
    const ok =
      typeof provided === 'string' &&
      typeof expected === 'string' &&
      provided.length === expected.length &&
      timingSafeEqual(Buffer.from(provided), Buffer.from(expected));
    callback(null, ok, ok ? undefined : { message: 'Invalid authorization state.' });
  }
}

type Done = (err: Error | null, user?: SocialProfile | false) => void;

const bindingCookieOptions = (secure: boolean) => ({
  httpOnly: true,
  secure,
  sameSite: 'strict' as const,
  path: `${API_BASE}/auth/social`,
});

export function clearSocialBindingCookie(res: Response, secure: boolean): void {
  res.clearCookie(SOCIAL_BINDING_COOKIE, bindingCookieOptions(secure));
}

/** A provider's address, normalised like a typed one; null when it is not a valid address. */
function normalisedEmail(email: unknown): string | null {
  const parsed = emailSchema.safeParse(email);
  return parsed.success ? parsed.data : null;
}

/** Reads the JSON of a provider's API with the access token (LinkedIn's OpenID Connect userinfo). */
async function fetchJson(url: string, accessToken: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
  });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return (await res.json()) as Record<string, unknown>;
}

/** Builds the passport strategies of the configured providers. */
export async function configureSocial(
  config: Config,
  logger: Logger,
): Promise<{
  passport: passport.PassportStatic;
  enabled: SocialProvider[];
}> {
  const instance = new passport.Passport() as unknown as passport.PassportStatic;
  const store = new CookieStateStore(config.publicUrl.startsWith('https://'));
  const callbackURL = (provider: SocialProvider) =>
    `${config.publicUrl}${API_BASE}/auth/${provider}/callback`;
  const enabled: SocialProvider[] = [];
  const { google, github, linkedin } = config.social;

  if (google) {
    instance.use(
      'google',
      new GoogleStrategy(
        {
          clientID: google.clientId,
          clientSecret: google.clientSecret,
          callbackURL: callbackURL('google'),
          authorizationURL: google.authorizationUrl,
          tokenURL: google.tokenUrl,
          userProfileURL: google.userInfoUrl,
          scope: ['openid', 'email', 'profile'],
          store: store as never,
        },
        (_accessToken: string, _refreshToken: string, profile: Profile, done: Done) => {
          const json = (profile as Profile & { _json: Record<string, unknown> })._json;
          done(null, {
            provider: 'google',
            subject: String(json.sub ?? profile.id),
            email: normalisedEmail(json.email),
            emailVerified: json.email_verified === true || json.email_verified === 'true',
            nameHint: String(json.given_name ?? json.name ?? 'operator'),
          });
        },
      ),
    );
    enabled.push('google');
  }

  if (github) {
    instance.use(
      'github',
      new GitHubStrategy(
        {
          clientID: github.clientId,
          clientSecret: github.clientSecret,
          callbackURL: callbackURL('github'),
          authorizationURL: github.authorizationUrl,
          tokenURL: github.tokenUrl,
          userProfileURL: `${github.apiUrl}/user`,
          userEmailURL: `${github.apiUrl}/user/emails`,
          allRawEmails: true,
          scope: ['read:user', 'user:email'],
          store: store as never,
        } as never,
        (_accessToken: string, _refreshToken: string, profile: Profile, done: Done) => {
          // GitHub lists every address with its own verified flag; take the verified primary.
          const emails = (profile.emails ?? []) as { value: string; primary?: boolean; verified?: boolean }[];
          const chosen = emails.find((e) => e.primary && e.verified) ?? emails.find((e) => e.verified);
          done(null, {
            provider: 'github',
            subject: String(profile.id),
            email: normalisedEmail(chosen?.value),
            emailVerified: !!chosen,
            nameHint: profile.username ?? profile.displayName ?? 'operator',
          });
        },
      ),
    );
    enabled.push('github');
  }

  if (linkedin) {
    // LinkedIn signs in with OpenID Connect: endpoints come from the issuer's discovery document.
    try {
      const discovery = await fetch(`${linkedin.issuer}/.well-known/openid-configuration`);
      if (!discovery.ok) throw new Error(`discovery answered ${discovery.status}`);
      const meta = (await discovery.json()) as Record<string, string>;
      const strategy = new OAuth2Strategy(
        {
          clientID: linkedin.clientId,
          clientSecret: linkedin.clientSecret,
          callbackURL: callbackURL('linkedin'),
          authorizationURL: meta.authorization_endpoint!,
          tokenURL: meta.token_endpoint!,
          scope: ['openid', 'profile', 'email'],
          store: store as never,
        },
        (_accessToken: string, _refreshToken: string, profile: SocialProfile, done: Done) =>
          done(null, profile),
      );
      strategy.userProfile = (accessToken, done) => {
        fetchJson(meta.userinfo_endpoint!, accessToken).then(
          (json) =>
            done(null, {
              provider: 'linkedin',
              subject: String(json.sub),
              email: normalisedEmail(json.email),
              emailVerified: json.email_verified === true || json.email_verified === 'true',
              nameHint: String(json.given_name ?? json.name ?? 'operator'),
            } satisfies SocialProfile),
          (err: Error) => done(err),
        );
      };
      instance.use('linkedin', strategy);
      enabled.push('linkedin');
    } catch (err) {
      logger.error(
        { err, issuer: linkedin.issuer },
        'LinkedIn sign-in disabled: OpenID Connect discovery failed',
      );
    }
  }
  return { passport: instance, enabled };
}

/** The account of a social sign-in, or why there is none (and nothing was created). */
export type SocialAccount =
  | { userId: string }
  | { refused: 'no_verified_email' }
  /** It would have created an account, and the visitor has not confirmed their age and accepted the terms. */
  | { refused: 'consent_required' };

/**
 * Finds or creates the account of a social sign-in. An identity seen before signs in its
 * account; a new one joins the account with the same provider-verified email; otherwise a
 * new, verified account is created with a handle derived from the profile, but only with
 * `consent` (the visitor confirmed their age and accepted the terms on the sign-up page), which
 * it records like a sign-up by password. Joining an account whose email was never verified
 * drops its password: whoever set it never proved they own the address (account pre-hijacking).
 */
export async function accountForProfile(
  orm: Orm,
  profile: SocialProfile,
  welcome: Welcome,
  options: { consent: boolean },
): Promise<SocialAccount> {
  const sql = new Sql(orm.em.fork() as EntityManager);
  return sql.transaction(async (tx): Promise<SocialAccount> => {
    const known = await tx.one<{ user_id: string }>(
      'select user_id from social_identities where provider = ? and subject = ?',
      [profile.provider, profile.subject],
    );
    if (known) return { userId: known.user_id };
    if (!profile.email || !profile.emailVerified) return { refused: 'no_verified_email' };

    const existing = await tx.one<{ id: string; email_verified_at: string | null; signed_in: boolean }>(
      `select id, email_verified_at, exists (select 1 from sessions s where s.user_id = users.id) as signed_in
         from users where email = ? for update`,
      [profile.email],
    );
    if (!existing && !options.consent) return { refused: 'consent_required' };
    let userId = existing?.id;
    // Its password was set by whoever signed up; if the address was never verified, or the
    // account never signed in, that may not be the person who owns the address now proving it.
    // (Such an account has no sessions to end: signing in needs a verified address.)
    if (existing && (!existing.email_verified_at || !existing.signed_in)) {
      await tx.run(
        'update users set email_verified_at = now(), password_hash = null, updated_at = now() where id = ?',
        [existing.id],
      );
    }
    if (!userId) {
      userId = randomUUID();
      const base = profile.nameHint.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 18) || 'operator';
      for (let attempt = 0; ; attempt++) {
        const handle = (
          attempt === 0 && base.length >= 3 ? base : `${base}-${Math.floor(Math.random() * 1e5)}`
        ).slice(0, 24);
        const inserted = await tx.one<{ id: string }>(
          `insert into users (id, handle, email, email_verified_at, age_confirmed_at, terms_accepted_at, terms_revision)
           values (?, ?, ?, now(), now(), now(), ?)
           on conflict (handle) do nothing returning id`,
          [userId, handle, profile.email, LEGAL_REVISION],
        );
        if (inserted) {
          await welcome(tx, userId);
          break;
        }
        if (attempt > 20) throw new Error('could not find a free handle');
      }
    }
    const linked = await tx.one<{ user_id: string }>(
      `insert into social_identities (provider, subject, user_id, email) values (?, ?, ?, ?)
       on conflict (provider, subject) do update set provider = excluded.provider
       returning user_id`,
      [profile.provider, profile.subject, userId, profile.email],
    );
    // A concurrent first sign-in of the same identity may have linked it first.
    return { userId: linked?.user_id ?? userId };
  });
}

/** `GET /auth/{provider}` starts a sign-in; `/auth/{provider}/callback` ends it at `/login?token=CODE`. */
export function socialRoutes(deps: {
  passport: passport.PassportStatic;
  enabled: SocialProvider[];
  orm: Orm;
  auth: AuthService;
  logger: Logger;
  secureCookies: boolean;
  welcome: Welcome;
}): Router {
  const router = Router();
  const log = deps.logger.child({ component: 'social' });
  router.use(`/auth`, cookieParser());
  for (const provider of SOCIAL_PROVIDERS) {
    if (!deps.enabled.includes(provider)) continue;
    router.get(`/auth/${provider}`, deps.passport.authenticate(provider, { session: false }));
    router.get(`/auth/${provider}/callback`, (req: Request, res: Response, next) => {
      deps.passport.authenticate(
        provider,
        { session: false },
        (err: Error | null, profile: SocialProfile | false) => {
          if (err || !profile) {
            if (err) log.warn({ err, provider }, 'Social sign-in failed');
            res.redirect(302, SOCIAL_FAILURE_REDIRECT);
            return;
          }
          // passport has checked the state against its cookie by now (CookieStateStore.verify).
          const consent = stateCarriesConsent(req.query.state);
          accountForProfile(deps.orm, profile, deps.welcome, { consent })
            .then(async (account) => {
              if ('refused' in account) {
                if (account.refused === 'consent_required') {
                  log.info({ provider }, 'Social sign-in refused: a new account needs consent');
                  res.redirect(302, SOCIAL_CONSENT_REDIRECT);
                  return;
                }
                log.info({ provider }, 'Social sign-in refused: no verified email');
                res.redirect(302, SOCIAL_FAILURE_REDIRECT);
                return;
              }
              const { userId } = account;
              const binding = newToken(24);
              res.cookie(SOCIAL_BINDING_COOKIE, binding, {
                ...bindingCookieOptions(deps.secureCookies),
                maxAge: 2 * 60 * 1000,
              });
              const code = await deps.auth.createSocialCode(userId, binding);
              log.info({ provider, userId }, 'Signed in with a social provider');
              res.redirect(302, `/login?token=${encodeURIComponent(code)}`);
            })
            .catch(next);
        },
      )(req, res, next);
    });
  }
  return router;
}
