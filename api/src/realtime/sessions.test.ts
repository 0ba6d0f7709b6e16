import { expect } from 'chai';
import pg from 'pg';
import { io as connect, type Socket } from 'socket.io-client';
import { GRID_NAMESPACE, VPN_STATUS_NAMESPACE } from '../contracts/index.ts';
import { REFRESH_COOKIE } from '../auth/routes.ts';
import { createAccount, linkFromMailFile, type TestAccount } from '../testing/accounts.ts';
import { startTestPlatform, type TestPlatform } from '../testing/fixtures.ts';

/** Resolves with the reason of each socket's disconnection. */
const cut = (sockets: Socket[]) =>
  Promise.all(sockets.map((s) => new Promise<string>((resolve) => s.once('disconnect', resolve))));
const SERVER_CUT = 'io server disconnect';

describe('sockets end with their session', () => {
  /** Re-checks sockets at its default half minute: what it cuts, it cuts at once. */
  let platform: TestPlatform;
  /** Re-checks sockets every 100 ms: expiry and sessions ended elsewhere. */
  let rechecking: TestPlatform;
  let db: pg.Client;
  const open: Socket[] = [];

  before(async () => {
    const throttleLimits = { signupIp: { points: 1000, durationSeconds: 60, blockSeconds: 60 } };
    platform = await startTestPlatform({ throttleLimits });
    rechecking = await startTestPlatform({ throttleLimits, socketSessionCheckMs: 100 });
    db = new pg.Client({ connectionString: rechecking.databaseUrl });
    await db.connect();
  });
  afterEach(() => {
    for (const socket of open.splice(0)) socket.close();
  });
  after(async () => {
    await db?.end();
    await platform?.close();
    await rechecking?.close();
  });

  /** A new session of an account: its access token and refresh cookie. */
  async function login(on: TestPlatform, account: TestAccount): Promise<{ token: string; refresh: string }> {
    const res = await fetch(`${on.baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: account.email, password: account.password }),
    });
    const token = ((await res.json()) as { access_token: string }).access_token;
    const refresh = new RegExp(`${REFRESH_COOKIE}=([^;]*)`).exec(res.headers.get('set-cookie') ?? '')![1]!;
    return { token, refresh };
  }

  /** A new account and a fresh session of it. */
  async function session(on = platform): Promise<TestAccount & { refresh: string }> {
    const account = await createAccount(on);
    return { ...account, ...(await login(on, account)) };
  }

  /** A socket of each namespace, open with the token of one session. */
  async function sockets(account: { token: string; id: string }, on = platform): Promise<Socket[]> {
    const opened = await Promise.all(
      [GRID_NAMESPACE, VPN_STATUS_NAMESPACE].map(
        (namespace) =>
          new Promise<Socket>((resolve, reject) => {
            const socket = connect(`${on.baseUrl}${namespace}`, {
              transports: ['websocket'],
              auth: { token: account.token },
              query: { userId: account.id },
              reconnection: false,
            });
            socket.once('connect', () => resolve(socket));
            socket.once('connect_error', reject);
          }),
      ),
    );
    open.push(...opened);
    return opened;
  }

  const post = (path: string, options: { cookie?: string; body?: unknown }) =>
    fetch(`${platform.baseUrl}/api/v1${path}`, {
      method: 'POST',
      headers: {
        ...(options.cookie ? { cookie: `${REFRESH_COOKIE}=${options.cookie}` } : {}),
        ...(options.body ? { 'content-type': 'application/json' } : {}),
      },
      body: options.body ? JSON.stringify(options.body) : undefined,
    });

  it('cuts the sockets of a session ended by logout', async () => {
    const account = await session();
    const ended = cut(await sockets(account));
    await post('/auth/logout', { cookie: account.refresh });
    expect(await ended).to.deep.equal([SERVER_CUT, SERVER_CUT]);
  });

  it('cuts the sockets of a session whose refresh token was used twice, and only those', async () => {
    const account = await session();
    const other = await session();
    const mine = await sockets(account);
    const theirs = await sockets(other);
    const ended = cut(mine);
    expect((await post('/auth/refresh', { cookie: account.refresh })).status).to.equal(200);
    expect((await post('/auth/refresh', { cookie: account.refresh })).status).to.equal(401);
    expect(await ended).to.deep.equal([SERVER_CUT, SERVER_CUT]);
    expect(theirs.map((s) => s.connected)).to.deep.equal([true, true]);
  });

  it('cuts the sockets of every session of the account when its password is reset', async () => {
    const account = await session();
    const second = await login(platform, account);
    const ended = cut([...(await sockets(account)), ...(await sockets({ ...second, id: account.id }))]);
    await post('/auth/forgot-password', { body: { email: account.email } });
    const link = new URL(await linkFromMailFile(platform.dataDir, account.email, '/reset-password?token='));
    const reset = await post('/auth/reset-password', {
      body: { token: link.searchParams.get('token'), password: 'a brand new passphrase' },
    });
    expect(reset.status).to.equal(200);
    expect(await ended).to.deep.equal(Array(4).fill(SERVER_CUT));
  });

  it('cuts the sockets of a session once it expires', async () => {
    const account = await session(rechecking);
    const other = await session(rechecking);
    const ended = cut(await sockets(account, rechecking));
    const theirs = await sockets(other, rechecking);
    await db.query("update sessions set expires_at = now() - interval '1 second' where user_id = $1", [
      account.id,
    ]);
    expect(await ended).to.deep.equal([SERVER_CUT, SERVER_CUT]);
    expect(theirs.map((s) => s.connected)).to.deep.equal([true, true]);
  });

  it('cuts the sockets of a session ended elsewhere (another API replica) or deleted', async () => {
    const first = await session(rechecking);
    const second = await session(rechecking);
    const ended = cut([...(await sockets(first, rechecking)), ...(await sockets(second, rechecking))]);
    await db.query("update sessions set revoked_at = now(), revoked_reason = 'logout' where user_id = $1", [
      first.id,
    ]);
    await db.query(
      'delete from refresh_tokens where session_id in (select id from sessions where user_id = $1)',
      [second.id],
    );
    await db.query('delete from sessions where user_id = $1', [second.id]);
    expect(await ended).to.deep.equal(Array(4).fill(SERVER_CUT));
  });
});
