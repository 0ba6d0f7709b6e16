import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { io as connect } from 'socket.io-client';
import {
  AGE_CONFIRMATION_REQUIRED,
  EMAIL_NOT_VERIFIED,
  FORGOT_PASSWORD_ACCEPTED,
  GRID_NAMESPACE,
  INVALID_CREDENTIALS,
  INVALID_OR_EXPIRED_TOKEN,
  LEGAL_REVISION,
  MAIL_COOLDOWN_SECONDS,
  PASSWORD_TOO_GUESSABLE,
  PASSWORD_TOO_SHORT,
  RESEND_ACCEPTED,
  SIGNUP_ACCEPTED,
  SOCKET_UNAUTHORIZED,
  TERMS_ACCEPTANCE_REQUIRED,
} from '../contracts/index.ts';
import { startTestPlatform, type TestPlatform } from '../testing/fixtures.ts';
import { Mailbox, linkIn } from '../testing/mailbox.ts';
import { REFRESH_COOKIE } from './routes.ts';
import { NUL_MESSAGE } from '../http/nul.ts';

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
  /** The refresh cookie set by the answer, if any ('' when cleared). */
  refreshCookie?: string;
  setCookie: string;
}

describe('accounts and sessions', () => {
  let platform: TestPlatform;
  let mailbox: Mailbox;
  let db: pg.Client;
  let counter = 0;

  before(async () => {
    mailbox = new Mailbox();
    const smtpUrl = await mailbox.start();
    platform = await startTestPlatform({
      // Behind a (pretend) proxy on loopback: each test speaks from an address of its own.
      env: { SMTP_URL: smtpUrl, PUBLIC_URL: 'http://grid.test', TRUST_PROXY: 'loopback' },
      throttleLimits: { loginAccount: { points: 4, durationSeconds: 600, blockSeconds: 600 } },
    });
    db = new pg.Client({ connectionString: platform.databaseUrl });
    await db.connect();
  });
  after(async () => {
    await db?.end();
    await platform?.close();
    await mailbox?.stop();
  });

  /** Each test uses its own client address, so throttles of one test do not touch another. */
  let ip: string;
  beforeEach(() => {
    counter++;
    ip = `10.0.${Math.floor(counter / 250)}.${counter % 250}`;
  });

  async function call(
    method: string,
    path: string,
    options: { body?: unknown; token?: string; cookie?: string } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { 'x-forwarded-for': ip };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.cookie !== undefined) headers.cookie = `${REFRESH_COOKIE}=${options.cookie}`;
    const res = await fetch(`${platform.baseUrl}/api/v1${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      redirect: 'manual',
    });
    const text = await res.text();
    const setCookie = res.headers.get('set-cookie') ?? '';
    const match = setCookie.match(new RegExp(`${REFRESH_COOKIE}=([^;]*)`));
    return {
      status: res.status,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      headers: res.headers,
      refreshCookie: match?.[1],
      setCookie,
    };
  }

  function newIdentity() {
    const n = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
    return {
      handle: `op_${n}`.slice(0, 24),
      email: `operator.${n}@example.test`,
      password: 'correct horse battery',
      // The sign-up page's two boxes: 13 or older, and the Terms of Service and the Privacy Policy accepted.
      ageConfirmed: true,
      termsAccepted: true,
    };
  }

  async function signUp(identity = newIdentity()) {
    const res = await call('POST', '/auth/signup', { body: identity });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return identity;
  }

  async function verify(email: string) {
    const mail = await mailbox.waitFor(email, /Confirm your Exploit Grid identity/);
    const link = new URL(linkIn(mail, '/api/v1/auth/verify-email'));
    const res = await fetch(`${platform.baseUrl}${link.pathname}${link.search}`, { redirect: 'manual' });
    return res;
  }

  async function signedIn() {
    const identity = await signUp();
    await verify(identity.email);
    const login = await call('POST', '/auth/login', {
      body: { email: identity.email, password: identity.password },
    });
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
    return { ...identity, token: login.body.access_token as string, refresh: login.refreshCookie! };
  }

  const users = async (email: string) =>
    (await db.query('select * from users where email = $1', [email])).rows as Record<string, unknown>[];

  /** As if the minute between two mails to one address had passed (tests that are not about it). */
  const cooldownsOver = () => db.query("delete from rate_limits where key like 'mailCooldown:%'");

  const tooGuessable = new RegExp(`^password: ${PASSWORD_TOO_GUESSABLE.replace('.', '\\.')} \\S`);

  describe('sign-up', () => {
    it('creates an unverified account, stores UTM fields and mails a verification link', async () => {
      const identity = newIdentity();
      const res = await call('POST', '/auth/signup', {
        body: {
          ...identity,
          utmSource: 'newsletter',
          utmMedium: 'email',
          utmCampaign: 'launch',
          referralCode: 'FRIEND1',
        },
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.deep.equal({ message: SIGNUP_ACCEPTED });
      const [row] = await users(identity.email);
      expect(row).to.include({
        handle: identity.handle,
        mmr: 1000,
        tier: 'BASIC',
        utm_source: 'newsletter',
        utm_medium: 'email',
        utm_campaign: 'launch',
        referral_code: 'FRIEND1',
        email_verified_at: null,
      });
      expect(row?.password_hash).to.match(/^\$argon2id\$/);
      // The consent of the sign-up page, with when and which revision of the terms.
      expect(row?.terms_revision).to.equal(LEGAL_REVISION);
      for (const column of ['age_confirmed_at', 'terms_accepted_at']) {
        expect(Date.now() - (row?.[column] as Date).getTime(), column).to.be.within(0, 60_000);
      }
      const mail = await mailbox.waitFor(identity.email, /Confirm your Exploit Grid identity/);
      expect(linkIn(mail, '/api/v1/auth/verify-email?token=')).to.match(/^http:\/\/grid\.test\//);
      expect(mail.html).to.include('Confirm my address');
    });

    it('normalises the email (trimmed, case-insensitive) and accepts empty UTM strings', async () => {
      const identity = newIdentity();
      const res = await call('POST', '/auth/signup', {
        body: {
          ...identity,
          email: `  ${identity.email.toUpperCase()} `,
          utmSource: '',
          utmMedium: '',
          utmCampaign: '',
          referralCode: '',
        },
      });
      expect(res.status).to.equal(201);
      const rows = await users(identity.email);
      expect(rows).to.have.length(1);
      expect(rows[0]?.email).to.equal(identity.email.toLowerCase());
    });

    const consentRefusal = (field: 'ageConfirmed' | 'termsAccepted') =>
      new RegExp(
        `^${field}: ${(field === 'ageConfirmed' ? AGE_CONFIRMATION_REQUIRED : TERMS_ACCEPTANCE_REQUIRED).replace('.', '\\.')}$`,
      );
    const bad: [string, Record<string, unknown>, RegExp][] = [
      [
        'a short password',
        { password: 'short' },
        new RegExp(`^password: ${PASSWORD_TOO_SHORT.replace('.', '\\.')}`),
      ],
      [
        'a password over 128 characters',
        { password: 'x'.repeat(129) },
        /^password: Password must be at most 128/,
      ],
      ['a malformed email', { email: 'not-an-email' }, /^email: Enter a valid email address/],
      ['a handle with spaces', { handle: 'two words' }, /^handle: Handle must be 3 to 24/],
      ['a handle too short', { handle: 'ab' }, /^handle: Handle must be 3 to 24/],
      ['a handle too long', { handle: 'h'.repeat(25) }, /^handle: Handle must be 3 to 24/],
      ['a missing handle', { handle: undefined }, /^handle: /],
      ['an unknown field', { isAdmin: true }, /^Unknown field in request body: isAdmin/],
      ['an oversized UTM field', { utmSource: 'u'.repeat(201) }, /^utmSource: /],
      ['no age confirmation', { ageConfirmed: undefined }, consentRefusal('ageConfirmed')],
      ['an age confirmation of false', { ageConfirmed: false }, consentRefusal('ageConfirmed')],
      [
        'an age confirmation forged as the string "true"',
        { ageConfirmed: 'true' },
        consentRefusal('ageConfirmed'),
      ],
      ['no acceptance of the terms', { termsAccepted: undefined }, consentRefusal('termsAccepted')],
      ['an acceptance of the terms as 1', { termsAccepted: 1 }, consentRefusal('termsAccepted')],
      ['an acceptance of the terms as null', { termsAccepted: null }, consentRefusal('termsAccepted')],
    ];
    for (const [what, change, message] of bad) {
      it(`refuses ${what} with a 400 and creates nothing`, async () => {
        const identity = { ...newIdentity(), ...change };
        const res = await call('POST', '/auth/signup', { body: identity });
        expect(res.status).to.equal(400);
        expect(res.body.message).to.match(message);
        const count = await db.query('select count(*)::int as n from users where handle = $1 or email = $2', [
          String(identity.handle ?? ''),
          String(identity.email ?? ''),
        ]);
        expect(count.rows[0].n).to.equal(0);
      });
    }

    it('refuses a sign-up without both consents with a 400, creates nothing, holds no handle and sends no mail', async () => {
      const identity = newIdentity();
      const res = await call('POST', '/auth/signup', {
        body: { ...identity, ageConfirmed: undefined, termsAccepted: undefined },
      });
      expect(res.status).to.equal(400);
      expect(res.body.message).to.equal(`ageConfirmed: ${AGE_CONFIRMATION_REQUIRED}`);
      expect(await users(identity.email)).to.have.length(0);
      // The handle is still free, and the address may sign up at once: no mail went out, no cooldown started.
      await signUp(identity);
      expect(await users(identity.email)).to.have.length(1);
      await mailbox.waitFor(identity.email, /Confirm/);
      await new Promise((r) => setTimeout(r, 200));
      expect(mailbox.to(identity.email)).to.have.length(0);
    });

    for (const [what, password] of [
      ['the most common password', 'password'],
      ['a common password dressed up with a capital, a digit and a symbol', 'Password1!'],
      ["the operator's own handle and a year", 'HANDLE2024'],
    ] as const) {
      it(`refuses ${what} with the reason, creates nothing and sends no mail`, async () => {
        const identity = newIdentity();
        const res = await call('POST', '/auth/signup', {
          body: { ...identity, password: password.replace('HANDLE', identity.handle) },
        });
        expect(res.status).to.equal(400);
        expect(res.body.message).to.match(tooGuessable);
        expect(await users(identity.email)).to.have.length(0);
        await new Promise((r) => setTimeout(r, 200));
        expect(mailbox.to(identity.email)).to.have.length(0);
      });
    }

    it('refuses an easy password for an address that has an account exactly as for a new one', async () => {
      const owner = await signUp();
      await mailbox.waitFor(owner.email, /Confirm/);
      const answers = [];
      for (const email of [owner.email, newIdentity().email]) {
        answers.push(
          (await call('POST', '/auth/signup', { body: { ...newIdentity(), email, password: 'Password1!' } }))
            .body,
        );
      }
      expect(answers[0]).to.deep.equal(answers[1]);
    });

    it('accepts a passphrase of uncommon words', async () => {
      const identity = { ...newIdentity(), password: 'quartz violet harbor lantern' };
      await signUp(identity);
      expect(await users(identity.email)).to.have.length(1);
    });

    it('refuses a handle taken in any letter case with 409', async () => {
      const first = await signUp();
      const res = await call('POST', '/auth/signup', {
        body: { ...newIdentity(), handle: first.handle.toUpperCase() },
      });
      expect(res.status).to.equal(409);
      expect(res.body.message).to.equal('Handle is already taken.');
    });

    it('answers a taken email exactly like a new one, creates nothing and tells the owner by mail', async () => {
      const first = await signUp();
      await mailbox.waitFor(first.email, /Confirm/);
      const res = await call('POST', '/auth/signup', {
        body: { ...newIdentity(), email: first.email.toUpperCase() },
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.deep.equal({ message: SIGNUP_ACCEPTED });
      expect(await users(first.email)).to.have.length(1);
      await mailbox.waitFor(first.email, /Someone tried to sign up with your address/);
    });

    it('lets exactly one of many concurrent sign-ups with the same handle through', async () => {
      const handle = newIdentity().handle;
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          call('POST', '/auth/signup', {
            body: { ...newIdentity(), handle, email: `race${i}.${handle}@example.test` },
          }),
        ),
      );
      expect(answers.filter((a) => a.status === 201)).to.have.length(1);
      expect(answers.filter((a) => a.status === 409)).to.have.length(5);
    });

    it('holds the handle of a sign-up with a taken address, so the handle cannot tell the address was taken', async () => {
      const owner = await signUp();
      const probe = newIdentity();
      expect(
        (await call('POST', '/auth/signup', { body: { ...probe, email: owner.email } })).status,
      ).to.equal(201);
      const again = await call('POST', '/auth/signup', { body: { ...newIdentity(), handle: probe.handle } });
      expect(again.status).to.equal(409);
      expect(again.body.message).to.equal('Handle is already taken.');
    });

    it('sends the "someone tried" notice to one address at most twice a day', async () => {
      const owner = await signUp();
      await mailbox.waitFor(owner.email, /Confirm/);
      for (let i = 0; i < 3; i++) {
        expect(
          (await call('POST', '/auth/signup', { body: { ...newIdentity(), email: owner.email } })).status,
        ).to.equal(201);
      }
      await mailbox.waitFor(owner.email, /Someone tried/);
      await mailbox.waitFor(owner.email, /Someone tried/);
      await new Promise((r) => setTimeout(r, 300));
      expect(mailbox.to(owner.email)).to.have.length(0);
    });

    it('accepts the longest valid address all the way to sign-in', async () => {
      const identity = {
        ...newIdentity(),
        email: `${'l'.repeat(64)}.${counter}@${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(50)}.test`,
      };
      expect(identity.email.length).to.be.within(240, 254);
      await signUp(identity);
      await verify(identity.email);
      const login = await call('POST', '/auth/login', {
        body: { email: identity.email, password: identity.password },
      });
      expect(login.status).to.equal(200);
      expect(
        (await call('POST', '/auth/forgot-password', { body: { email: identity.email } })).status,
      ).to.equal(200);
    });
  });

  describe('email verification', () => {
    it('verifies once, then redirects to the failure page', async () => {
      const identity = await signUp();
      const mail = await mailbox.waitFor(identity.email, /Confirm/);
      const link = new URL(linkIn(mail, '/api/v1/auth/verify-email'));
      const first = await fetch(`${platform.baseUrl}${link.pathname}${link.search}`, { redirect: 'manual' });
      expect(first.status).to.equal(302);
      expect(first.headers.get('location')).to.equal('/login?verified=true');
      expect((await users(identity.email))[0]?.email_verified_at).not.to.equal(null);
      const again = await fetch(`${platform.baseUrl}${link.pathname}${link.search}`, { redirect: 'manual' });
      expect(again.headers.get('location')).to.equal('/login?verified=false&reason=expired_or_invalid');
    });

    it('refuses an expired link', async () => {
      const identity = await signUp();
      await db.query(
        "update user_tokens set expires_at = now() - interval '1 second' where user_id = (select id from users where email = $1)",
        [identity.email],
      );
      const res = await verify(identity.email);
      expect(res.headers.get('location')).to.equal('/login?verified=false&reason=expired_or_invalid');
      expect((await users(identity.email))[0]?.email_verified_at).to.equal(null);
    });

    it('redirects, never answers JSON, for a link with extra, repeated or oversized parameters', async () => {
      for (const query of ['?token=abc&utm_source=mail', '?token=a&token=b', `?token=${'x'.repeat(300)}`]) {
        const res = await fetch(`${platform.baseUrl}/api/v1/auth/verify-email${query}`, {
          redirect: 'manual',
        });
        expect(res.status, query).to.equal(302);
        expect(res.headers.get('location')).to.equal('/login?verified=false&reason=expired_or_invalid');
      }
    });

    it('refuses a made-up or missing token', async () => {
      for (const query of ['?token=AAAAAAAAAAAAAAAAAAAAAA', '']) {
        const res = await fetch(`${platform.baseUrl}/api/v1/auth/verify-email${query}`, {
          redirect: 'manual',
        });
        expect(res.headers.get('location')).to.equal('/login?verified=false&reason=expired_or_invalid');
      }
    });

    it('stores verification tokens hashed, never in clear', async () => {
      const identity = await signUp();
      const mail = await mailbox.waitFor(identity.email, /Confirm/);
      const token = new URL(linkIn(mail, 'verify-email')).searchParams.get('token')!;
      expect(Buffer.from(token, 'base64url')).to.have.length(16);
      const rows = await db.query(
        "select token_hash from user_tokens where token_hash = decode($1, 'hex') or encode(token_hash, 'escape') like '%' || $2 || '%'",
        [Buffer.from(token).toString('hex'), token],
      );
      expect(rows.rowCount).to.equal(0);
    });

    it('resends a link to an unverified address and answers the same for any address', async () => {
      const identity = await signUp();
      await mailbox.waitFor(identity.email, /Confirm/);
      await cooldownsOver();
      const res = await call('POST', '/auth/resend-verification', { body: { email: identity.email } });
      expect(res.body).to.deep.equal({ message: RESEND_ACCEPTED });
      await mailbox.waitFor(identity.email, /Confirm/);
      const unknown = await call('POST', '/auth/resend-verification', {
        body: { email: 'nobody@example.test' },
      });
      expect(unknown.status).to.equal(200);
      expect(unknown.body).to.deep.equal({ message: RESEND_ACCEPTED });
    });
  });

  describe('mail cooldown', () => {
    async function expectCooldown(answer: Answer) {
      expect(answer.status).to.equal(429);
      const retryAfter = Number(answer.headers.get('retry-after'));
      expect(retryAfter).to.be.within(1, MAIL_COOLDOWN_SECONDS);
      expect(answer.body.message).to.equal(
        `A link was requested for this address moments ago. Try again in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`,
      );
    }

    it('counts the sign-up mail: a resend within the minute gets 429 with Retry-After and sends nothing', async () => {
      const identity = await signUp();
      await mailbox.waitFor(identity.email, /Confirm/);
      await expectCooldown(
        await call('POST', '/auth/resend-verification', { body: { email: identity.email } }),
      );
      await new Promise((r) => setTimeout(r, 300));
      expect(mailbox.to(identity.email)).to.have.length(0);
    });

    it('sends one mail for two resends in a row; the second gets 429 with Retry-After', async () => {
      const identity = await signUp();
      await mailbox.waitFor(identity.email, /Confirm/);
      await cooldownsOver();
      const first = await call('POST', '/auth/resend-verification', { body: { email: identity.email } });
      const second = await call('POST', '/auth/resend-verification', { body: { email: identity.email } });
      expect(first.status).to.equal(200);
      await expectCooldown(second);
      await mailbox.waitFor(identity.email, /Confirm/);
      await new Promise((r) => setTimeout(r, 300));
      expect(mailbox.to(identity.email)).to.have.length(0);
    });

    it('sends one mail for two parallel resends', async () => {
      const identity = await signUp();
      await mailbox.waitFor(identity.email, /Confirm/);
      await cooldownsOver();
      const answers = await Promise.all(
        [1, 2].map(() => call('POST', '/auth/resend-verification', { body: { email: identity.email } })),
      );
      expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 429]);
      await mailbox.waitFor(identity.email, /Confirm/);
      await new Promise((r) => setTimeout(r, 300));
      expect(mailbox.to(identity.email)).to.have.length(0);
    });

    it('answers a known and an unknown address alike, cooldown included', async () => {
      const session = await signedIn();
      const unknown = `nobody.${counter}@example.test`;
      const answers: Answer[] = [];
      for (const email of [session.email, unknown, session.email, unknown]) {
        answers.push(await call('POST', '/auth/forgot-password', { body: { email } }));
      }
      const [known1, unknown1, known2, unknown2] = answers as [Answer, Answer, Answer, Answer];
      expect(known1.status).to.equal(200);
      expect(unknown1.status).to.equal(200);
      expect(known1.body).to.deep.equal(unknown1.body);
      await expectCooldown(known2);
      await expectCooldown(unknown2);
      expect(known2.body.message).to.equal(unknown2.body.message);
      await mailbox.waitFor(session.email, /Reset/);
      await new Promise((r) => setTimeout(r, 300));
      expect(mailbox.to(session.email)).to.have.length(0);
      expect(mailbox.to(unknown)).to.have.length(0);
    });

    it('keeps the kinds apart: a reset link right after the sign-up mail goes out', async () => {
      const identity = await signUp();
      await mailbox.waitFor(identity.email, /Confirm/);
      expect(
        (await call('POST', '/auth/forgot-password', { body: { email: identity.email } })).status,
      ).to.equal(200);
      await mailbox.waitFor(identity.email, /Reset/);
    });
  });

  describe('sign-in', () => {
    it('refuses a NUL character anywhere in a request with a clear 400, before any route runs', async () => {
      const identity = await signUp();
      await verify(identity.email);
      for (const body of [
        { email: `${identity.email}\u0000`, password: identity.password },
        { email: identity.email, password: `${identity.password}\u0000` },
        { email: identity.email, password: identity.password, ['x\u0000']: 1 },
      ]) {
        const res = await call('POST', '/auth/login', { body });
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.message).to.equal(NUL_MESSAGE);
      }
      expect((await call('GET', '/users/me?x=%00')).status).to.equal(400);
      expect((await call('GET', '/users/%00')).body.message).to.equal(NUL_MESSAGE);
    });

    it('answers EMAIL_NOT_VERIFIED before verification', async () => {
      const identity = await signUp();
      const res = await call('POST', '/auth/login', {
        body: { email: identity.email, password: identity.password },
      });
      expect(res.status).to.equal(403);
      expect(res.body.message).to.equal(EMAIL_NOT_VERIFIED);
      expect(res.refreshCookie).to.equal(undefined);
    });

    it('issues an access token and a refresh cookie (httpOnly, SameSite=Strict, scoped to /api/v1/auth)', async () => {
      const identity = await signUp();
      await verify(identity.email);
      const res = await call('POST', '/auth/login', {
        body: { email: identity.email.toUpperCase(), password: identity.password },
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ token_type: 'Bearer', expires_in: 900 });
      expect(res.body.access_token).to.be.a('string');
      expect(res.setCookie)
        .to.match(/HttpOnly/i)
        .and.match(/SameSite=Strict/i)
        .and.match(/Path=\/api\/v1\/auth/);
      expect(res.setCookie).not.to.match(/Secure/i);
      const me = await call('GET', '/users/me', { token: res.body.access_token as string });
      expect(me.status).to.equal(200);
      expect(me.body).to.deep.include({
        handle: identity.handle,
        email: identity.email,
        mmr: 1000,
        isOnline: false,
        credits: 0,
        // The starting gift (STARTING_FREE_CREDITS, 100 by default).
        freeCredits: 100,
        subscription: { tier: 'BASIC' },
      });
      expect(me.body).not.to.have.any.keys('password_hash', 'passwordHash');
    });

    it('answers the same for a wrong password and an unknown address', async () => {
      const identity = await signedIn();
      const wrong = await call('POST', '/auth/login', {
        body: { email: identity.email, password: 'wrong password!' },
      });
      const unknown = await call('POST', '/auth/login', {
        body: { email: 'ghost@example.test', password: 'wrong password!' },
      });
      for (const res of [wrong, unknown]) {
        expect(res.status).to.equal(401);
        expect(res.body).to.deep.equal({
          statusCode: 401,
          message: INVALID_CREDENTIALS,
          error: 'Unauthorized',
        });
      }
    });

    it('throttles failed logins per account with 429 and Retry-After, across addresses', async () => {
      const identity = await signedIn();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        ip = `192.0.2.${i + 1}`;
        const res = await call('POST', '/auth/login', {
          body: { email: identity.email, password: 'wrong password!' },
        });
        statuses.push(res.status);
        if (res.status === 429) expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
      }
      expect(statuses).to.deep.equal([401, 401, 401, 401, 429]);
      // Even the right password is refused while throttled.
      const right = await call('POST', '/auth/login', {
        body: { email: identity.email, password: identity.password },
      });
      expect(right.status).to.equal(429);
    });

    it('counts only failures against an account: slow guessing cannot lock its owner out', async () => {
      const identity = await signedIn();
      for (let i = 0; i < 3; i++) {
        expect(
          (
            await call('POST', '/auth/login', {
              body: { email: identity.email, password: 'wrong password!' },
            })
          ).status,
        ).to.equal(401);
      }
      expect(
        (await call('POST', '/auth/login', { body: { email: identity.email, password: identity.password } }))
          .status,
      ).to.equal(200);
      // The success cleared the count: three more failures still do not block.
      for (let i = 0; i < 3; i++) {
        expect(
          (
            await call('POST', '/auth/login', {
              body: { email: identity.email, password: 'wrong password!' },
            })
          ).status,
        ).to.equal(401);
      }
      expect(
        (await call('POST', '/auth/login', { body: { email: identity.email, password: identity.password } }))
          .status,
      ).to.equal(200);
    });

    it('answers API calls with Cache-Control: no-store', async () => {
      const identity = await signedIn();
      const res = await call('POST', '/auth/login', {
        body: { email: identity.email, password: identity.password },
      });
      expect(res.headers.get('cache-control')).to.equal('no-store');
    });

    it('throttles logins per address', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 32; i++) {
        const res = await call('POST', '/auth/login', {
          body: { email: `spray${i}@example.test`, password: 'Summer2026!' },
        });
        statuses.push(res.status);
      }
      expect(statuses.slice(0, 30).every((s) => s === 401)).to.equal(true);
      expect(statuses.slice(30)).to.deep.equal([429, 429]);
    });
  });

  describe('sessions', () => {
    it('rotates the refresh token on every refresh', async () => {
      const session = await signedIn();
      const first = await call('POST', '/auth/refresh', { cookie: session.refresh });
      expect(first.status).to.equal(200);
      expect(first.refreshCookie).to.be.a('string').and.not.equal(session.refresh);
      const me = await call('GET', '/users/me', { token: first.body.access_token as string });
      expect(me.status).to.equal(200);
      const second = await call('POST', '/auth/refresh', { cookie: first.refreshCookie });
      expect(second.status).to.equal(200);
    });

    it('revokes the whole family when a rotated refresh token is used again', async () => {
      const session = await signedIn();
      const rotated = await call('POST', '/auth/refresh', { cookie: session.refresh });
      expect(rotated.status).to.equal(200);
      const replay = await call('POST', '/auth/refresh', { cookie: session.refresh });
      expect(replay.status).to.equal(401);
      expect(replay.body.message).to.equal(INVALID_OR_EXPIRED_TOKEN);
      // The legitimate successor and the access tokens of the family are dead too.
      expect((await call('POST', '/auth/refresh', { cookie: rotated.refreshCookie })).status).to.equal(401);
      expect(
        (await call('GET', '/users/me', { token: rotated.body.access_token as string })).status,
      ).to.equal(401);
      expect((await call('GET', '/users/me', { token: session.token })).status).to.equal(401);
    });

    it('lets exactly one of concurrent refreshes with the same token through', async () => {
      const session = await signedIn();
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => call('POST', '/auth/refresh', { cookie: session.refresh })),
      );
      expect(answers.filter((a) => a.status === 200).length).to.be.at.most(1);
    });

    it('does not throttle refresh: a flood from one address cannot sign its neighbours out', async () => {
      const session = await signedIn();
      const flood = await Promise.all(Array.from({ length: 70 }, () => call('POST', '/auth/refresh')));
      expect(flood.every((a) => a.status === 401)).to.equal(true);
      expect((await call('POST', '/auth/refresh', { cookie: session.refresh })).status).to.equal(200);
    });

    it('refuses a refresh after the absolute lifetime of the session', async () => {
      const session = await signedIn();
      await db.query(
        "update sessions set expires_at = now() - interval '1 second' where user_id = (select id from users where email = $1)",
        [session.email],
      );
      expect((await call('POST', '/auth/refresh', { cookie: session.refresh })).status).to.equal(401);
    });

    it('ends the session on logout: refresh and access token stop working, the cookie is cleared', async () => {
      const session = await signedIn();
      const out = await call('POST', '/auth/logout', { cookie: session.refresh });
      expect(out.status).to.equal(204);
      expect(out.setCookie).to.match(new RegExp(`${REFRESH_COOKIE}=;`));
      expect((await call('POST', '/auth/refresh', { cookie: session.refresh })).status).to.equal(401);
      expect((await call('GET', '/users/me', { token: session.token })).status).to.equal(401);
    });

    it('refuses requests without a token, with a forged one, or with a malformed header', async () => {
      const session = await signedIn();
      const [header, payload] = session.token.split('.');
      const forged = `${header}.${payload}.${Buffer.from('forged-signature').toString('base64url')}`;
      for (const token of [undefined, forged, 'garbage']) {
        const res = await call('GET', '/users/me', { token });
        expect(res.status).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.equal('Bearer');
      }
    });

    it('admits a socket with the access token of a live session and refuses it after logout', async () => {
      const session = await signedIn();
      const me = await call('GET', '/users/me', { token: session.token });
      const open = () =>
        new Promise<Error | undefined>((resolve) => {
          const socket = connect(`${platform.baseUrl}${GRID_NAMESPACE}`, {
            transports: ['websocket'],
            auth: { token: session.token },
            query: { userId: me.body.id as string },
            reconnection: false,
          });
          socket.once('connect', () => {
            socket.close();
            resolve(undefined);
          });
          socket.once('connect_error', (err) => {
            socket.close();
            resolve(err);
          });
        });
      expect(await open()).to.equal(undefined);
      await call('POST', '/auth/logout', { cookie: session.refresh });
      expect((await open())?.message).to.equal(SOCKET_UNAUTHORIZED);
    });

    it('cuts the open sockets of a session when it ends', async () => {
      const session = await signedIn();
      const me = await call('GET', '/users/me', { token: session.token });
      const socket = connect(`${platform.baseUrl}${GRID_NAMESPACE}`, {
        transports: ['websocket'],
        auth: { token: session.token },
        query: { userId: me.body.id as string },
        reconnection: false,
      });
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      const cut = new Promise<string>((resolve) => socket.once('disconnect', resolve));
      await call('POST', '/auth/logout', { cookie: session.refresh });
      expect(await cut).to.equal('io server disconnect');
      socket.close();
    });
  });

  describe('password reset', () => {
    it('mails a link, sets the new password once and ends every session', async () => {
      const session = await signedIn();
      const res = await call('POST', '/auth/forgot-password', { body: { email: session.email } });
      expect(res.body).to.deep.equal({ message: FORGOT_PASSWORD_ACCEPTED });
      const mail = await mailbox.waitFor(session.email, /Reset your Exploit Grid password/);
      const token = new URL(linkIn(mail, '/reset-password?token=')).searchParams.get('token')!;
      const reset = await call('POST', '/auth/reset-password', {
        body: { token, password: 'a brand new passphrase' },
      });
      expect(reset.status).to.equal(200);
      expect(
        (await call('POST', '/auth/reset-password', { body: { token, password: 'yet another passphrase' } }))
          .body.message,
      ).to.equal(INVALID_OR_EXPIRED_TOKEN);
      expect((await call('POST', '/auth/refresh', { cookie: session.refresh })).status).to.equal(401);
      expect((await call('GET', '/users/me', { token: session.token })).status).to.equal(401);
      expect(
        (await call('POST', '/auth/login', { body: { email: session.email, password: session.password } }))
          .status,
      ).to.equal(401);
      expect(
        (
          await call('POST', '/auth/login', {
            body: { email: session.email, password: 'a brand new passphrase' },
          })
        ).status,
      ).to.equal(200);
    });

    it('lets only one of two reset links used at the same time through (no deadlock either)', async () => {
      // Several rounds: the race is between database transactions and does not always happen.
      for (let round = 0; round < 4; round++) {
        const session = await signedIn();
        await call('POST', '/auth/forgot-password', { body: { email: session.email } });
        await cooldownsOver();
        await call('POST', '/auth/forgot-password', { body: { email: session.email } });
        const links = [
          await mailbox.waitFor(session.email, /Reset/),
          await mailbox.waitFor(session.email, /Reset/),
        ].map((mail) => new URL(linkIn(mail, '/reset-password?token=')).searchParams.get('token')!);
        const answers = await Promise.all(
          links.map((token, i) =>
            call('POST', '/auth/reset-password', { body: { token, password: `new passphrase number ${i}` } }),
          ),
        );
        expect(answers.map((a) => a.status).sort(), `round ${round}`).to.deep.equal([200, 400]);
      }
    });

    it('refuses an easy new password with the reason and keeps the link usable', async () => {
      const session = await signedIn();
      await call('POST', '/auth/forgot-password', { body: { email: session.email } });
      const mail = await mailbox.waitFor(session.email, /Reset/);
      const token = new URL(linkIn(mail, '/reset-password?token=')).searchParams.get('token')!;
      for (const password of ['Password1!', `${session.handle}2024`]) {
        const weak = await call('POST', '/auth/reset-password', { body: { token, password } });
        expect(weak.status, password).to.equal(400);
        expect(weak.body.message).to.match(tooGuessable);
      }
      expect((await call('GET', '/users/me', { token: session.token })).status).to.equal(200);
      const strong = await call('POST', '/auth/reset-password', {
        body: { token, password: 'quartz violet harbor lantern' },
      });
      expect(strong.status).to.equal(200);
    });

    it('answers the same for an unknown address and sends nothing', async () => {
      const res = await call('POST', '/auth/forgot-password', {
        body: { email: 'unknown.person@example.test' },
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ message: FORGOT_PASSWORD_ACCEPTED });
      await new Promise((r) => setTimeout(r, 200));
      expect(mailbox.to('unknown.person@example.test')).to.have.length(0);
    });

    it('refuses an expired reset token and a short new password, changing nothing', async () => {
      const session = await signedIn();
      await call('POST', '/auth/forgot-password', { body: { email: session.email } });
      const mail = await mailbox.waitFor(session.email, /Reset/);
      const token = new URL(linkIn(mail, '/reset-password?token=')).searchParams.get('token')!;
      const short = await call('POST', '/auth/reset-password', { body: { token, password: 'short' } });
      expect(short.status).to.equal(400);
      expect(short.body.message).to.equal(`password: ${PASSWORD_TOO_SHORT}`);
      await db.query(
        "update user_tokens set expires_at = now() - interval '1 second' where purpose = 'RESET_PASSWORD' and user_id = (select id from users where email = $1)",
        [session.email],
      );
      const expired = await call('POST', '/auth/reset-password', {
        body: { token, password: 'a brand new passphrase' },
      });
      expect(expired.status).to.equal(400);
      expect((await call('GET', '/users/me', { token: session.token })).status).to.equal(200);
    });

    it('throttles reset mails per account', async () => {
      const session = await signedIn();
      const statuses = [];
      for (let i = 0; i < 4; i++) {
        await cooldownsOver();
        statuses.push(
          (await call('POST', '/auth/forgot-password', { body: { email: session.email } })).status,
        );
      }
      expect(statuses).to.deep.equal([200, 200, 200, 429]);
    });
  });

  describe('user calls', () => {
    it('answers stats with a rank and zero wins', async () => {
      const session = await signedIn();
      const res = await call('GET', '/user/stats', { token: session.token });
      expect(res.status).to.equal(200);
      expect(res.body.attacksWon).to.equal(0);
      expect(res.body.defensesWon).to.equal(0);
      expect(res.body.rank).to.be.a('number').and.at.least(1);
    });

    it('logs upsell views and refuses other activity types', async () => {
      const session = await signedIn();
      expect(
        (
          await call('POST', '/user-activity/log', {
            token: session.token,
            body: { activityType: 'LEADERBOARD_VIEW' },
          })
        ).status,
      ).to.equal(204);
      const bad = await call('POST', '/user-activity/log', {
        token: session.token,
        body: { activityType: 'HACK_THE_PLANET' },
      });
      expect(bad.status).to.equal(400);
      expect(bad.body.message).to.match(/activityType must be one of LEADERBOARD_VIEW/);
      const rows = await db.query(
        'select activity_type from user_activity a join users u on u.id = a.user_id where u.email = $1',
        [session.email],
      );
      expect(rows.rows).to.deep.equal([{ activity_type: 'LEADERBOARD_VIEW' }]);
    });

    it('requires a session for every user call', async () => {
      for (const [method, path] of [
        ['GET', '/users/me'],
        ['GET', '/user/stats'],
        ['POST', '/user-activity/log'],
      ] as const) {
        expect(
          (await call(method, path, method === 'POST' ? { body: { activityType: 'PROFILE_VIEW' } } : {}))
            .status,
          path,
        ).to.equal(401);
      }
    });
  });
});
