import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SignupRequest } from '../contracts/index.ts';
import type { Orm } from '../db/orm.ts';
import { Sql, uniqueViolation } from '../db/sql.ts';
import { badRequest, conflict, forbidden, unauthorized } from '../http/errors.ts';
import type { Logger } from '../logger.ts';
import type { Mailer, MailMessage } from '../mail/mailer.ts';
import { accountExistsMail, resetPasswordMail, verifyEmailMail } from '../mail/templates.ts';
import {
  AGE_CONFIRMATION_REQUIRED,
  EMAIL_NOT_VERIFIED,
  INVALID_CREDENTIALS,
  INVALID_OR_EXPIRED_TOKEN,
  LEGAL_REVISION,
  TERMS_ACCEPTANCE_REQUIRED,
  VERIFY_REASON_EXPIRED_OR_INVALID,
} from '../contracts/index.ts';
import { ACCESS_TOKEN_TTL_SECONDS, type AccessClaims, type AccessTokens } from './jwt.ts';
import { assertHardToGuess } from './password-strength.ts';
import type { PasswordHasher } from './passwords.ts';
import { EventEmitter } from 'node:events';
import { clientKey, type Throttle } from './throttle.ts';
import { hashToken, newToken } from './tokens.ts';

export const VERIFY_EMAIL_TTL_MS = 24 * 60 * 60 * 1000;
export const RESET_PASSWORD_TTL_MS = 60 * 60 * 1000;
export const SOCIAL_CODE_TTL_MS = 60 * 1000;
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

type TokenPurpose = 'VERIFY_EMAIL' | 'RESET_PASSWORD' | 'SOCIAL_LOGIN';

/** Who is calling, for throttles and the session record. */
export interface ClientContext {
  ip: string;
  userAgent?: string;
}

/** A new or rotated session: the access token for the body, the refresh token for the cookie. */
export interface IssuedSession {
  accessToken: string;
  expiresIn: number;
  refreshToken: string;
  refreshExpiresAt: Date;
}

interface AccountRow {
  id: string;
  handle: string;
  email: string;
  password_hash: string | null;
  email_verified_at: string | null;
}

export interface AuthServiceDeps {
  orm: Orm;
  logger: Logger;
  hasher: PasswordHasher;
  accessTokens: AccessTokens;
  throttle: Throttle;
  mailer: Mailer;
  publicUrl: string;
  /** What every new account is given, in the transaction that makes it (credits' signup gift). */
  welcome: Welcome;
}

/** Runs in the transaction that makes account `userId` (so the account never exists without it). */
export type Welcome = (tx: Sql, userId: string) => Promise<void>;

/** Sessions that just ended: their sockets must be cut too. */
export interface SessionsRevoked {
  userId: string;
  /** The ended sessions; absent when every session of the user ended. */
  sessionIds?: string[];
  reason: string;
}

/** Sign-up, email verification, sign-in, sessions and password reset. */
export class AuthService {
  readonly #deps: AuthServiceDeps;
  readonly #log: Logger;
  /** `sessionsRevoked` (SessionsRevoked): the realtime layer disconnects what they opened. */
  readonly events = new EventEmitter<{ sessionsRevoked: [SessionsRevoked] }>();

  constructor(deps: AuthServiceDeps) {
    this.#deps = deps;
    this.#log = deps.logger.child({ component: 'auth' });
  }

  #sql(): Sql {
    return new Sql(this.#deps.orm.em.fork() as EntityManager);
  }

  /**
   * Creates an unverified account and mails a verification link. An address that already
   * has an account gets a notice instead, and the caller the same answer (no enumeration).
   * A taken handle is reported: handles are public anyway.
   */
  async signup(input: Required<SignupRequest>, ctx: ClientContext): Promise<void> {
    // The route's schema already demands both; a caller that skipped it must not make an account without them.
    if (input.ageConfirmed !== true) throw badRequest(AGE_CONFIRMATION_REQUIRED, 'CONSENT_REQUIRED');
    if (input.termsAccepted !== true) throw badRequest(TERMS_ACCEPTANCE_REQUIRED, 'CONSENT_REQUIRED');
    await this.#deps.throttle.consume(['signupIp', clientKey(ctx.ip)]);
    // Before anything that depends on the address, so that both branches below refuse alike.
    assertHardToGuess(input.password, input);
    const sql = this.#sql();
    const handleTaken = await sql.one(
      `select 1 from users where handle = ?
       union all select 1 from handle_reservations where handle = ? and expires_at > now()`,
      [input.handle, input.handle],
    );
    if (handleTaken) throw conflict('Handle is already taken.', 'HANDLE_TAKEN');

    // Hash in both branches so both take as long.
    const passwordHash = await this.#deps.hasher.hash(input.password);
    // A verification mail (or the notice) goes out now: a resend waits for the cooldown, in both branches.
    await this.#deps.throttle.tryConsume('mailCooldown', `verify:${input.email}`);
    const existing = await sql.one<AccountRow>('select * from users where email = ?', [input.email]);
    if (existing) {
      // The handle is held as if the account had been created: a second try with it must
      // not reveal, by succeeding, that this address already had an account.
      await sql.run(
        `insert into handle_reservations (handle, expires_at) values (?, now() + interval '1 day')
         on conflict (handle) do update set expires_at = excluded.expires_at
           where handle_reservations.expires_at <= now()`,
        [input.handle],
      );
      if (await this.#deps.throttle.tryConsume('noticeAccount', existing.email)) {
        this.#mailInBackground(
          accountExistsMail(
            existing.email,
            `${this.#deps.publicUrl}/login`,
            `${this.#deps.publicUrl}/forgot-password`,
          ),
        );
      }
      return;
    }

    const userId = randomUUID();
    let token: string;
    try {
      token = await sql.transaction(async (tx) => {
        await tx.run(
          `insert into users (id, handle, email, password_hash, utm_source, utm_medium, utm_campaign, referral_code,
                              age_confirmed_at, terms_accepted_at, terms_revision)
           values (?, ?, ?, ?, ?, ?, ?, ?, now(), now(), ?)`,
          [
            userId,
            input.handle,
            input.email,
            passwordHash,
            input.utmSource,
            input.utmMedium,
            input.utmCampaign,
            input.referralCode,
            LEGAL_REVISION,
          ],
        );
        await this.#deps.welcome(tx, userId);
        return this.#createToken(tx, userId, 'VERIFY_EMAIL', VERIFY_EMAIL_TTL_MS);
      });
    } catch (err) {
      // Lost a race with a concurrent sign-up.
      const constraint = uniqueViolation(err);
      if (constraint === 'users_handle_key') throw conflict('Handle is already taken.', 'HANDLE_TAKEN');
      if (constraint === 'users_email_key') return;
      throw err;
    }
    this.#log.info({ userId }, 'Created account');
    this.#mailInBackground(verifyEmailMail(input.email, input.handle, this.#verifyUrl(token)));
  }

  /** Marks the address verified. Answers where to send the browser. */
  async verifyEmail(token: string | undefined): Promise<string> {
    const failure = `/login?verified=false&reason=${VERIFY_REASON_EXPIRED_OR_INVALID}`;
    if (!token) return failure;
    const userId = await this.#sql().transaction(async (tx) => {
      const id = (await this.#redeemToken(tx, token, 'VERIFY_EMAIL'))?.userId ?? null;
      if (id)
        await tx.run(
          'update users set email_verified_at = coalesce(email_verified_at, now()), updated_at = now() where id = ?',
          [id],
        );
      return id;
    });
    if (!userId) return failure;
    this.#log.info({ userId }, 'Verified email address');
    return '/login?verified=true';
  }

  async login(email: string, password: string, ctx: ClientContext): Promise<IssuedSession> {
    await this.#deps.throttle.consume(['loginIp', clientKey(ctx.ip)]);
    // Only failures count against an account, so nobody can lock out its owner by
    // guessing slowly; once it is blocked even the right password waits.
    await this.#deps.throttle.assertOpen('loginAccount', email);
    const sql = this.#sql();
    const account = await sql.one<AccountRow>('select * from users where email = ?', [email]);
    const ok = await this.#deps.hasher.verify(account?.password_hash, password);
    if (!account || !ok) {
      await this.#deps.throttle.tryConsume('loginAccount', email);
      throw unauthorized(INVALID_CREDENTIALS);
    }
    if (!account.email_verified_at) throw forbidden(EMAIL_NOT_VERIFIED, EMAIL_NOT_VERIFIED);
    await this.#deps.throttle.reset('loginAccount', email);
    return this.#startSession(sql, account.id, ctx);
  }

  /**
   * Exchanges a refresh token for a new pair. A token that was already exchanged means it
   * leaked (or was replayed): the whole session (token family) is revoked.
   */
  async refresh(refreshToken: string | undefined, ctx: ClientContext): Promise<IssuedSession> {
    if (!refreshToken || refreshToken.length > 200) throw unauthorized(INVALID_OR_EXPIRED_TOKEN);
    const outcome = await this.#sql().transaction(async (tx) => {
      const row = await tx.one<{
        token_id: string;
        rotated_at: string | null;
        session_id: string;
        user_id: string;
        expires_at: string;
        live: boolean;
      }>(
        `select rt.id as token_id, rt.rotated_at, s.id as session_id, s.user_id, s.expires_at,
                (s.revoked_at is null and s.expires_at > now()) as live
           from refresh_tokens rt join sessions s on s.id = rt.session_id
          where rt.token_hash = ? for update of rt, s`,
        [hashToken(refreshToken)],
      );
      if (!row || !row.live) return { kind: 'invalid' as const };
      if (row.rotated_at) {
        await tx.run(
          "update sessions set revoked_at = now(), revoked_reason = 'refresh_token_reuse' where id = ? and revoked_at is null",
          [row.session_id],
        );
        return { kind: 'reused' as const, sessionId: row.session_id, userId: row.user_id };
      }
      const rotated = await tx.run(
        'update refresh_tokens set rotated_at = now() where id = ? and rotated_at is null',
        [row.token_id],
      );
      if (rotated !== 1) return { kind: 'invalid' as const };
      const next = newToken(32);
      await tx.run('insert into refresh_tokens (id, session_id, token_hash) values (?, ?, ?)', [
        randomUUID(),
        row.session_id,
        hashToken(next),
      ]);
      await tx.run('update sessions set last_used_at = now(), ip = ?, user_agent = ? where id = ?', [
        ctx.ip,
        ctx.userAgent?.slice(0, 300) ?? null,
        row.session_id,
      ]);
      return { kind: 'ok' as const, ...row, refreshToken: next };
    });
    if (outcome.kind === 'reused') {
      this.#log.warn(
        { sessionId: outcome.sessionId, userId: outcome.userId },
        'Revoked session: refresh token reused',
      );
      this.events.emit('sessionsRevoked', {
        userId: outcome.userId,
        sessionIds: [outcome.sessionId],
        reason: 'refresh_token_reuse',
      });
    }
    if (outcome.kind !== 'ok') throw unauthorized(INVALID_OR_EXPIRED_TOKEN);
    return {
      accessToken: await this.#deps.accessTokens.sign({
        userId: outcome.user_id,
        sessionId: outcome.session_id,
      }),
      expiresIn: ACCESS_TOKEN_TTL_SECONDS,
      refreshToken: outcome.refreshToken,
      // The cookie lives as long as the session: its absolute lifetime does not move.
      refreshExpiresAt: new Date(outcome.expires_at),
    };
  }

  /** Ends the session a refresh token belongs to (no error when there is none). */
  async logout(refreshToken: string | undefined): Promise<void> {
    if (!refreshToken || refreshToken.length > 200) return;
    const ended = await this.#sql().one<{ id: string; user_id: string }>(
      `update sessions set revoked_at = now(), revoked_reason = 'logout'
        where revoked_at is null and id = (select session_id from refresh_tokens where token_hash = ?)
        returning id, user_id`,
      [hashToken(refreshToken)],
    );
    if (ended)
      this.events.emit('sessionsRevoked', {
        userId: ended.user_id,
        sessionIds: [ended.id],
        reason: 'logout',
      });
  }

  /** Mails a reset link when the account exists; the caller learns nothing either way. */
  async forgotPassword(email: string, ctx: ClientContext): Promise<void> {
    // Per address whether or not it has an account: the answers, 429s included, must not tell.
    await this.#deps.throttle.consume(
      ['mailCooldown', `reset:${email}`],
      ['mailIp', clientKey(ctx.ip)],
      ['mailAccount', `reset:${email}`],
    );
    const sql = this.#sql();
    const account = await sql.one<AccountRow>('select * from users where email = ?', [email]);
    if (!account) return;
    const token = await this.#createToken(sql, account.id, 'RESET_PASSWORD', RESET_PASSWORD_TTL_MS);
    this.#mailInBackground(
      resetPasswordMail(
        account.email,
        account.handle,
        `${this.#deps.publicUrl}/reset-password?token=${token}`,
      ),
    );
  }

  /**
   * Sets a new password with a reset token. It also proves the address, and ends every
   * session of the account (whoever knew the old password is signed out).
   */
  async resetPassword(token: string, password: string, ctx: ClientContext): Promise<void> {
    await this.#deps.throttle.consume(['tokenIp', clientKey(ctx.ip)]);
    const invalid = () => badRequest(INVALID_OR_EXPIRED_TOKEN, 'INVALID_TOKEN');
    // Judge and hash only for a live token: made-up tokens must not buy work.
    const linkOwner = await this.#sql().one<{ handle: string; email: string }>(
      `select u.handle, u.email from user_tokens t join users u on u.id = t.user_id
        where t.token_hash = ? and t.purpose = 'RESET_PASSWORD' and t.used_at is null and t.expires_at > now()`,
      [hashToken(token)],
    );
    if (!linkOwner) throw invalid();
    // The link stays usable: its owner may try another password.
    assertHardToGuess(password, linkOwner);
    const passwordHash = await this.#deps.hasher.hash(password);
    const account = await this.#sql().transaction(async (tx) => {
      // Lock the account first: concurrent resets of one account then queue here instead of
      // deadlocking over each other's token rows.
      const owner = await tx.one<{ user_id: string }>(
        "select user_id from user_tokens where token_hash = ? and purpose = 'RESET_PASSWORD'",
        [hashToken(token)],
      );
      if (!owner) return null;
      await tx.one('select id from users where id = ? for update', [owner.user_id]);
      const redeemed = await this.#redeemToken(tx, token, 'RESET_PASSWORD');
      if (!redeemed) return null;
      // Of two reset links used at once, only one may win: the row lock orders them and
      // the loser sees a password changed after its link was issued.
      const updated = await tx.one<{ id: string; email: string }>(
        `update users set password_hash = ?, password_changed_at = clock_timestamp(),
                email_verified_at = coalesce(email_verified_at, now()), updated_at = now()
          where id = ? and (password_changed_at is null or password_changed_at < ?)
          returning id, email`,
        [passwordHash, redeemed.userId, redeemed.createdAt],
      );
      if (!updated) return null;
      // Other reset links of this account stop working too.
      await tx.run(
        "update user_tokens set used_at = now() where user_id = ? and purpose = 'RESET_PASSWORD' and used_at is null",
        [updated.id],
      );
      await tx.run(
        "update sessions set revoked_at = now(), revoked_reason = 'password_reset' where user_id = ? and revoked_at is null",
        [updated.id],
      );
      return updated;
    });
    if (!account) throw invalid();
    // Failed guesses against the old password no longer matter.
    await this.#deps.throttle.reset('loginAccount', account.email);
    this.events.emit('sessionsRevoked', { userId: account.id, reason: 'password_reset' });
    this.#log.info({ userId: account.id }, 'Reset password and revoked all sessions');
  }

  /** Mails a new verification link to an unverified account; same answer otherwise. */
  async resendVerification(email: string, ctx: ClientContext): Promise<void> {
    await this.#deps.throttle.consume(
      ['mailCooldown', `verify:${email}`],
      ['mailIp', clientKey(ctx.ip)],
      ['mailAccount', `verify:${email}`],
    );
    const sql = this.#sql();
    const account = await sql.one<AccountRow>('select * from users where email = ?', [email]);
    if (!account || account.email_verified_at) return;
    const token = await this.#createToken(sql, account.id, 'VERIFY_EMAIL', VERIFY_EMAIL_TTL_MS);
    this.#mailInBackground(verifyEmailMail(account.email, account.handle, this.#verifyUrl(token)));
  }

  /**
   * A single-use code (60 s) that the portal exchanges for a session after social sign-in,
   * bound to the browser that came back from the provider: only the holder of `binding`
   * (a cookie set on that browser) can exchange it.
   */
  async createSocialCode(userId: string, binding: string): Promise<string> {
    return this.#createToken(this.#sql(), userId, 'SOCIAL_LOGIN', SOCIAL_CODE_TTL_MS, binding);
  }

  async exchangeSocialCode(
    code: string,
    binding: string | undefined,
    ctx: ClientContext,
  ): Promise<IssuedSession> {
    await this.#deps.throttle.consume(['tokenIp', clientKey(ctx.ip)]);
    if (!binding || binding.length > 200) throw unauthorized(INVALID_OR_EXPIRED_TOKEN);
    const sql = this.#sql();
    const redeemed = await sql.transaction((tx) => this.#redeemToken(tx, code, 'SOCIAL_LOGIN', binding));
    if (!redeemed) throw unauthorized(INVALID_OR_EXPIRED_TOKEN);
    return this.#startSession(sql, redeemed.userId, ctx);
  }

  /**
   * The caller of a request: a valid access token whose session is still live, and whether staff
   * banned the account (a banned player may sign in and read, and do nothing else: docs/accounts.md).
   */
  async authenticate(accessToken: string): Promise<(AccessClaims & { banned: boolean }) | null> {
    const claims = await this.#deps.accessTokens.verify(accessToken);
    if (!claims) return null;
    const live = await this.#sql().one<{ banned: boolean }>(
      `select u.banned_at is not null as banned from sessions s join users u on u.id = s.user_id
        where s.id = ? and s.user_id = ? and s.revoked_at is null and s.expires_at > now()`,
      [claims.sessionId, claims.userId],
    );
    return live ? { ...claims, banned: live.banned } : null;
  }

  /** Counts a call that changes something against its user's limit; 429 with Retry-After past it. */
  async consumeCall(userId: string): Promise<void> {
    await this.#deps.throttle.consume(['userCalls', userId]);
  }

  /**
   * Of these sessions, the ones still live (not ended, not expired): sockets
   * of the others are cut (realtime/io.ts, watchSessions).
   */
  async liveSessions(sessionIds: string[]): Promise<Set<string>> {
    if (sessionIds.length === 0) return new Set();
    const rows = await this.#sql().all<{ id: string }>(
      `select s.id from sessions s join users u on u.id = s.user_id
        where s.id in (select value::uuid from jsonb_array_elements_text(?::jsonb))
          and s.revoked_at is null and s.expires_at > now()`,
      [JSON.stringify(sessionIds)],
    );
    return new Set(rows.map((r) => r.id));
  }

  async #startSession(sql: Sql, userId: string, ctx: ClientContext): Promise<IssuedSession> {
    const sessionId = randomUUID();
    const refreshToken = newToken(32);
    const refreshExpiresAt = new Date(Date.now() + SESSION_TTL_MS);
    await sql.transaction(async (tx) => {
      await tx.run('insert into sessions (id, user_id, expires_at, ip, user_agent) values (?, ?, ?, ?, ?)', [
        sessionId,
        userId,
        refreshExpiresAt,
        ctx.ip,
        ctx.userAgent?.slice(0, 300) ?? null,
      ]);
      await tx.run('insert into refresh_tokens (id, session_id, token_hash) values (?, ?, ?)', [
        randomUUID(),
        sessionId,
        hashToken(refreshToken),
      ]);
    });
    return {
      accessToken: await this.#deps.accessTokens.sign({ userId, sessionId }),
      expiresIn: ACCESS_TOKEN_TTL_SECONDS,
      refreshToken,
      refreshExpiresAt,
    };
  }

  async #createToken(
    sql: Sql,
    userId: string,
    purpose: TokenPurpose,
    ttlMs: number,
    binding?: string,
  ): Promise<string> {
    const token = newToken();
    await sql.run(
      'insert into user_tokens (id, user_id, purpose, token_hash, expires_at, binding_hash) values (?, ?, ?, ?, ?, ?)',
      [
        randomUUID(),
        userId,
        purpose,
        hashToken(token),
        new Date(Date.now() + ttlMs),
        binding ? hashToken(binding) : null,
      ],
    );
    return token;
  }

  /** Marks a live token used (once: a conditional update) and answers its user, or null. */
  async #redeemToken(
    sql: Sql,
    token: string,
    purpose: TokenPurpose,
    binding?: string,
  ): Promise<{ userId: string; createdAt: string } | null> {
    if (token.length > 200) return null;
    const row = await sql.one<{ user_id: string; created_at: string }>(
      `update user_tokens set used_at = now()
        where token_hash = ? and purpose = ? and used_at is null and expires_at > now()
          and (binding_hash is null or binding_hash = ?)
        returning user_id, created_at`,
      [hashToken(token), purpose, binding ? hashToken(binding) : null],
    );
    return row ? { userId: row.user_id, createdAt: row.created_at } : null;
  }

  #verifyUrl(token: string): string {
    return `${this.#deps.publicUrl}/api/v1/auth/verify-email?token=${token}`;
  }

  /** Mail goes out after the answer, so answers take as long whether or not one is sent. */
  #mailInBackground(message: MailMessage): void {
    void this.#deps.mailer.send(message).catch((err: unknown) => {
      this.#log.error({ err, subject: message.subject }, 'Could not send mail');
    });
  }
}
