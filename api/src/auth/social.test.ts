import type { ServerResponse } from 'node:http';
import { expect } from 'chai';
import { Events, OAuth2Server } from 'oauth2-mock-server';
import pg from 'pg';
import { INVALID_OR_EXPIRED_TOKEN, LEGAL_REVISION } from '../contracts/index.ts';
import { startTestPlatform, type TestPlatform } from '../testing/fixtures.ts';
import { freeLoopbackPort } from '../net.ts';

/**
 * Social sign-in through passport against a local OAuth 2.0 / OpenID Connect provider
 * (oauth2-mock-server) that speaks the real protocol: authorization redirect, code
 * exchange at the token endpoint, userinfo, discovery. GitHub's REST shapes (/user,
 * /user/emails) are served by routes added to the same provider.
 */
describe('social sign-in', () => {
  let provider: OAuth2Server;
  let platform: TestPlatform;
  let db: pg.Client;
  let googleUser: Record<string, unknown>;
  let githubEmails: Record<string, unknown>[];

  before(async () => {
    provider = new OAuth2Server();
    await provider.issuer.keys.generate('RS256');
    await provider.start(await freeLoopbackPort(), '127.0.0.1');
    const issuer = provider.issuer.url!;
    provider.service.on(Events.BeforeUserinfo, (response) => {
      response.body = googleUser;
    });
    const json = (res: ServerResponse, body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    provider.service.addRoute('GET', '/user', (_req, res) =>
      json(res, { id: 4242, login: 'octo-operator', name: 'Octo Operator' }),
    );
    provider.service.addRoute('GET', '/user/emails', (_req, res) => json(res, githubEmails));

    const port = await freeLoopbackPort();
    platform = await startTestPlatform({
      env: {
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        GOOGLE_CLIENT_ID: 'google-client',
        GOOGLE_CLIENT_SECRET: 'google-secret',
        GOOGLE_AUTHORIZATION_URL: `${issuer}/authorize`,
        GOOGLE_TOKEN_URL: `${issuer}/token`,
        GOOGLE_USERINFO_URL: `${issuer}/userinfo`,
        GITHUB_CLIENT_ID: 'github-client',
        GITHUB_CLIENT_SECRET: 'github-secret',
        GITHUB_AUTHORIZATION_URL: `${issuer}/authorize`,
        GITHUB_TOKEN_URL: `${issuer}/token`,
        GITHUB_API_URL: issuer,
        LINKEDIN_CLIENT_ID: 'linkedin-client',
        LINKEDIN_CLIENT_SECRET: 'linkedin-secret',
        LINKEDIN_ISSUER: issuer,
      },
    });
    db = new pg.Client({ connectionString: platform.databaseUrl });
    await db.connect();
  });
  after(async () => {
    await db?.end();
    await platform?.close();
    await provider?.stop();
  });

  let n = 0;
  beforeEach(() => {
    n++;
    googleUser = {
      sub: `google-${n}`,
      email: `social${n}@example.test`,
      email_verified: true,
      given_name: `Ada${n}`,
      name: `Ada Lovelace ${n}`,
    };
    githubEmails = [
      { email: `octo${n}@example.test`, primary: true, verified: true, visibility: 'public' },
      { email: `spare${n}@example.test`, primary: false, verified: false, visibility: null },
    ];
  });

  /** Follows the browser's redirects from /auth/{provider} to where the API sends it at the end. */
  /** The browser's binding cookie from the last callback (sent with the exchange). */
  let binding = '';

  /**
   * `from: 'signup'` (the default): the sign-up page's button, with the visitor's consent (`?consent=true`);
   * `'login'`: the login page's, without.
   */
  async function signIn(
    name: string,
    options: {
      dropStateCookie?: boolean;
      from?: 'signup' | 'login';
      forgeState?: (state: string) => string;
    } = {},
  ): Promise<URL> {
    const query = (options.from ?? 'signup') === 'signup' ? '?consent=true' : '';
    // A browser on the sign-up page says the navigation comes from the same site.
    const start = await fetch(`${platform.baseUrl}/api/v1/auth/${name}${query}`, {
      redirect: 'manual',
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(start.status).to.equal(302);
    const stateCookie = (start.headers.get('set-cookie') ?? '').match(/eg_oauth_state=([^;]+)/)?.[1];
    expect(stateCookie, 'state cookie').to.be.a('string');
    const authorize = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    expect(authorize.status).to.equal(302);
    const callback = new URL(authorize.headers.get('location')!);
    expect(callback.pathname).to.equal(`/api/v1/auth/${name}/callback`);
    if (options.forgeState)
      callback.searchParams.set('state', options.forgeState(callback.searchParams.get('state')!));
    const end = await fetch(callback, {
      redirect: 'manual',
      headers: options.dropStateCookie ? {} : { cookie: `eg_oauth_state=${stateCookie}` },
    });
    expect(end.status).to.equal(302);
    binding = (end.headers.get('set-cookie') ?? '').match(/eg_social_binding=([^;]+)/)?.[1] ?? '';
    return new URL(end.headers.get('location')!, platform.baseUrl);
  }

  async function exchange(code: string, withBinding = binding) {
    const res = await fetch(`${platform.baseUrl}/api/v1/auth/social/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `eg_social_binding=${withBinding}` },
      body: JSON.stringify({ code }),
    });
    return {
      status: res.status,
      body: (await res.json()) as Record<string, unknown>,
      cookie: res.headers.get('set-cookie') ?? '',
    };
  }

  async function me(token: string) {
    const res = await fetch(`${platform.baseUrl}/api/v1/users/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return (await res.json()) as Record<string, unknown>;
  }

  it('lists the configured providers', async () => {
    const res = await fetch(`${platform.baseUrl}/api/v1/auth/providers`);
    expect(await res.json()).to.deep.equal({ providers: ['google', 'github', 'linkedin'] });
  });

  for (const name of ['google', 'linkedin'] as const) {
    it(`signs a new person in with ${name} (OpenID Connect userinfo): /login?token=CODE, exchanged once for a session`, async () => {
      const landing = await signIn(name);
      expect(landing.pathname).to.equal('/login');
      const code = landing.searchParams.get('token')!;
      expect(code).to.be.a('string');
      const session = await exchange(code);
      expect(session.status).to.equal(200);
      expect(session.cookie).to.match(/eg_refresh=/);
      const user = await me(session.body.access_token as string);
      expect(user.email).to.equal(googleUser.email);
      expect(user.handle).to.match(new RegExp(`^Ada${n}`));
      // New accounts from a provider get the starting gift like any other.
      expect(user.freeCredits).to.equal(100);
      const again = await exchange(code);
      expect(again.status).to.equal(401);
      expect(again.body.message).to.equal(INVALID_OR_EXPIRED_TOKEN);
    });
  }

  it("signs in with GitHub using the verified primary address from GitHub's email list", async () => {
    const landing = await signIn('github');
    const session = await exchange(landing.searchParams.get('token')!);
    const user = await me(session.body.access_token as string);
    expect(user.email).to.equal(`octo${n}@example.test`);
    expect(user.handle).to.match(/^octo-operator/);
  });

  it('signs the same identity into the same account next time', async () => {
    const first = await me(
      (await exchange((await signIn('google')).searchParams.get('token')!)).body.access_token as string,
    );
    const second = await me(
      (await exchange((await signIn('google')).searchParams.get('token')!)).body.access_token as string,
    );
    expect(second.id).to.equal(first.id);
  });

  it('links to an existing account with the same verified email that has signed in before', async () => {
    const existing = await db.query(
      "insert into users (id, handle, email, password_hash, email_verified_at) values (gen_random_uuid(), $1, $2, 'x', now()) returning id",
      [`linked${n}`, googleUser.email],
    );
    await db.query(
      "insert into sessions (id, user_id, expires_at) values (gen_random_uuid(), $1, now() + interval '1 day')",
      [existing.rows[0].id],
    );
    const user = await me(
      (await exchange((await signIn('google')).searchParams.get('token')!)).body.access_token as string,
    );
    expect(user.id).to.equal(existing.rows[0].id);
    const row = await db.query('select password_hash from users where id = $1', [user.id]);
    expect(row.rows[0].password_hash).to.equal('x');
  });

  it('claims an unverified account with that email and drops the password nobody proved', async () => {
    const existing = await db.query(
      "insert into users (id, handle, email, password_hash) values (gen_random_uuid(), $1, $2, 'set-by-someone') returning id",
      [`squat${n}`, googleUser.email],
    );
    const user = await me(
      (await exchange((await signIn('google')).searchParams.get('token')!)).body.access_token as string,
    );
    expect(user.id).to.equal(existing.rows[0].id);
    const row = await db.query('select password_hash, email_verified_at from users where id = $1', [user.id]);
    expect(row.rows[0].password_hash).to.equal(null);
    expect(row.rows[0].email_verified_at).not.to.equal(null);
  });

  it('drops the password of a verified account that never signed in when an identity joins it', async () => {
    const existing = await db.query(
      "insert into users (id, handle, email, password_hash, email_verified_at) values (gen_random_uuid(), $1, $2, 'planted', now()) returning id",
      [`planted${n}`, googleUser.email],
    );
    const user = await me(
      (await exchange((await signIn('google')).searchParams.get('token')!)).body.access_token as string,
    );
    expect(user.id).to.equal(existing.rows[0].id);
    expect(
      (await db.query('select password_hash from users where id = $1', [user.id])).rows[0].password_hash,
    ).to.equal(null);
  });

  it('exchanges a code only in the browser that came back from the provider', async () => {
    const code = (await signIn('google')).searchParams.get('token')!;
    const elsewhere = await exchange(code, 'another-browser-cookie');
    expect(elsewhere.status).to.equal(401);
    expect((await exchange(code, '')).status).to.equal(401);
    expect((await exchange(code)).status).to.equal(200);
  });

  it('normalises the address a provider gives', async () => {
    googleUser.email = `  Mixed.Case${n}@Example.TEST `;
    const user = await me(
      (await exchange((await signIn('google')).searchParams.get('token')!)).body.access_token as string,
    );
    expect(user.email).to.equal(`mixed.case${n}@example.test`);
  });

  it('refuses a provider account without a verified email', async () => {
    googleUser.email_verified = false;
    const landing = await signIn('google');
    expect(landing.pathname + landing.search).to.equal('/login?verified=false&reason=social_sign_in_failed');
    expect((await db.query('select 1 from users where email = $1', [googleUser.email])).rowCount).to.equal(0);
  });

  it('refuses a callback whose state does not match the cookie (login CSRF)', async () => {
    const landing = await signIn('google', { dropStateCookie: true });
    expect(landing.searchParams.get('token')).to.equal(null);
    expect(landing.searchParams.get('reason')).to.equal('social_sign_in_failed');
  });

  it('refuses a code after its 60 seconds', async () => {
    const code = (await signIn('google')).searchParams.get('token')!;
    await db.query(
      "update user_tokens set expires_at = now() - interval '1 second' where purpose = 'SOCIAL_LOGIN'",
    );
    expect((await exchange(code)).status).to.equal(401);
  });

  describe('consent: a new account needs the sign-up page (13 or older, the terms accepted)', () => {
    const identities = async () =>
      (await db.query('select 1 from social_identities where subject = $1', [googleUser.sub])).rowCount;
    const accounts = async () =>
      (await db.query('select 1 from users where email = $1', [googleUser.email])).rowCount;

    it('sends a first sign-in from the login page to /signup with the reason, and creates nothing', async () => {
      const landing = await signIn('google', { from: 'login' });
      expect(landing.pathname + landing.search).to.equal('/signup?reason=social_consent_required');
      expect(await accounts()).to.equal(0);
      expect(await identities()).to.equal(0);
      expect(binding, 'no sign-in code for this browser').to.equal('');
    });

    it('creates the account from the sign-up page and records when and which terms were accepted', async () => {
      expect((await signIn('google', { from: 'login' })).pathname).to.equal('/signup');
      const landing = await signIn('google');
      const user = await me((await exchange(landing.searchParams.get('token')!)).body.access_token as string);
      const row = (
        await db.query(
          'select age_confirmed_at, terms_accepted_at, terms_revision, email_verified_at from users where id = $1',
          [user.id],
        )
      ).rows[0];
      expect(row.terms_revision).to.equal(LEGAL_REVISION);
      for (const column of ['age_confirmed_at', 'terms_accepted_at', 'email_verified_at'])
        expect(Date.now() - (row[column] as Date).getTime(), column).to.be.within(0, 60_000);
    });

    it('signs a known identity in from the login page without asking again', async () => {
      const first = await me(
        (await exchange((await signIn('google')).searchParams.get('token')!)).body.access_token as string,
      );
      const landing = await signIn('google', { from: 'login' });
      expect(landing.pathname).to.equal('/login');
      const again = await me(
        (await exchange(landing.searchParams.get('token')!)).body.access_token as string,
      );
      expect(again.id).to.equal(first.id);
    });

    it('joins an account that existed before consent was asked, and leaves its consent unrecorded', async () => {
      const existing = await db.query(
        "insert into users (id, handle, email, password_hash, email_verified_at) values (gen_random_uuid(), $1, $2, 'x', now()) returning id",
        [`before${n}`, googleUser.email],
      );
      await db.query(
        "insert into sessions (id, user_id, expires_at) values (gen_random_uuid(), $1, now() + interval '1 day')",
        [existing.rows[0].id],
      );
      const landing = await signIn('google', { from: 'login' });
      const user = await me((await exchange(landing.searchParams.get('token')!)).body.access_token as string);
      expect(user.id).to.equal(existing.rows[0].id);
      const row = (
        await db.query(
          'select age_confirmed_at, terms_accepted_at, terms_revision from users where id = $1',
          [user.id],
        )
      ).rows[0];
      expect(row).to.deep.equal({ age_confirmed_at: null, terms_accepted_at: null, terms_revision: null });
    });

    it('refuses consent written into the state on the way back (it must match the cookie), creating nothing', async () => {
      const landing = await signIn('google', { from: 'login', forgeState: (state) => `${state}.consent` });
      expect(landing.pathname + landing.search).to.equal(
        '/login?verified=false&reason=social_sign_in_failed',
      );
      expect(await accounts()).to.equal(0);
    });

    it('takes only consent=true as consent, and only from the sign-up page itself', async () => {
      const stateOf = async (query: string, site?: string) => {
        const start = await fetch(`${platform.baseUrl}/api/v1/auth/google${query}`, {
          redirect: 'manual',
          headers: site ? { 'sec-fetch-site': site } : {},
        });
        return new URL(start.headers.get('location')!).searchParams.get('state');
      };
      for (const query of ['?consent=1', '?consent=yes', '?consent=true&consent=true', '?Consent=true'])
        expect(await stateOf(query, 'same-origin'), query).not.to.match(/\.consent$/);
      // A link to the sign-in from another site, or from a browser that does not say where it comes from: the
      // visitor never saw the two boxes, so the link's consent=true is not theirs.
      for (const site of ['cross-site', 'same-site', 'none', undefined])
        expect(await stateOf('?consent=true', site), String(site)).not.to.match(/\.consent$/);
      expect(await stateOf('?consent=true', 'same-origin')).to.match(/\.consent$/);
    });
  });

  it('offers no route for a provider that is not configured', async () => {
    const bare = await startTestPlatform();
    try {
      expect(await (await fetch(`${bare.baseUrl}/api/v1/auth/providers`)).json()).to.deep.equal({
        providers: [],
      });
      expect((await fetch(`${bare.baseUrl}/api/v1/auth/google`, { redirect: 'manual' })).status).to.equal(
        404,
      );
    } finally {
      await bare.close();
    }
  });
});
