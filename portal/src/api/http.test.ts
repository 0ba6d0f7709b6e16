import { userSchema, userStatsSchema } from '@exploit-grid/api/contracts';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { AUTH_STORAGE_KEY } from '../stores/AuthStore.ts';
import { RootStore, type Navigator } from '../stores/RootStore.ts';
import { deferred, fail, fakeApi, reply, testUser, tokenAnswer, type FakeReply } from '../testing/fakeApi.ts';
import { fakeSockets } from '../testing/fakeSockets.ts';
import { ApiError } from './ApiError.ts';

const stats = { rank: 4, attacksWon: 2, defensesWon: 1 };

/** A signed-in store whose router sits at `path`. */
function signedIn(path = '/history?page=2') {
  const store = new RootStore({ socketFactory: fakeSockets().factory });
  store.auth.setAccessToken('old-token');
  store.auth.setUser(testUser);
  const [pathname = '', search = ''] = path.split(/(?=\?)/);
  const navigator: Navigator = { state: { location: { pathname, search } }, navigate: vi.fn() };
  store.attachRouter(navigator);
  return { store, navigator };
}

/** Answers 401 to the old token and `ok` to the new one. */
const acceptsOnly =
  (token: string, ok: FakeReply) =>
  ({ authorization }: { authorization: string | null }) =>
    authorization === `Bearer ${token}` ? ok : fail(401, 'Unauthorized');

describe('HTTP client', () => {
  it('sends JSON with the bearer token and credentials, and parses the answer', async () => {
    const api = fakeApi({ 'GET /users/me': reply(200, testUser) });
    const { store } = signedIn();
    await expect(store.api.get('/users/me', userSchema)).resolves.toEqual(testUser);
    expect(api.calls[0]).toMatchObject({ authorization: 'Bearer old-token', credentials: 'include' });
  });

  it('turns an error answer into an ApiError carrying the status and the server message', async () => {
    fakeApi({ 'POST /auth/signup': fail(409, 'That handle is taken.') });
    const { store } = signedIn();
    const error = await store.api.post('/auth/signup', z.unknown(), { body: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, serverMessage: 'That handle is taken.' });
  });

  it('carries Retry-After of a 429, in seconds, whether the server sent seconds or a date', async () => {
    const api = fakeApi({
      'POST /auth/resend-verification': fail(429, 'Slow down.', { 'Retry-After': '42' }),
    });
    const { store } = signedIn();
    const post = () =>
      store.api.post('/auth/resend-verification', z.unknown(), { body: {} }).catch((e: unknown) => e);
    expect(await post()).toMatchObject({ status: 429, serverMessage: 'Slow down.', retryAfterSeconds: 42 });
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    api.on('POST /auth/resend-verification', fail(429, 'Slow down.', { 'Retry-After': inAMinute }));
    expect(((await post()) as ApiError).retryAfterSeconds).toBeGreaterThanOrEqual(59);
    api.on('POST /auth/resend-verification', fail(429, 'Slow down.'));
    expect(((await post()) as ApiError).retryAfterSeconds).toBeUndefined();
  });

  it('lets a request that got no answer reject with the network error unchanged', async () => {
    const networkError = new TypeError('Failed to fetch');
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(networkError));
    const { store } = signedIn();
    await expect(store.api.get('/users/me', userSchema)).rejects.toBe(networkError);
  });

  it('refreshes once on a 401, then retries the request with the new token', async () => {
    const api = fakeApi({
      'GET /users/me': acceptsOnly('new-token', reply(200, testUser)),
      'POST /auth/refresh': tokenAnswer('new-token'),
    });
    const { store } = signedIn();
    await expect(store.api.get('/users/me', userSchema)).resolves.toEqual(testUser);
    expect(api.callsTo('POST /auth/refresh')).toHaveLength(1);
    expect(api.callsTo('GET /users/me').map((c) => c.authorization)).toEqual([
      'Bearer old-token',
      'Bearer new-token',
    ]);
    expect(store.auth.accessToken).toBe('new-token');
  });

  it('makes one refresh for many concurrent 401s and retries each of them', async () => {
    const refresh = deferred<FakeReply>();
    const api = fakeApi({
      'GET /users/me': acceptsOnly('new-token', reply(200, testUser)),
      'GET /user/stats': acceptsOnly('new-token', reply(200, stats)),
      'POST /auth/refresh': () => refresh.promise,
    });
    const { store } = signedIn();
    const results = Promise.all([
      store.api.get('/users/me', userSchema),
      store.api.get('/user/stats', userStatsSchema),
      store.api.get('/users/me', userSchema),
    ]);
    await vi.waitFor(() => expect(api.callsTo('POST /auth/refresh')).toHaveLength(1));
    refresh.resolve(tokenAnswer('new-token'));
    await expect(results).resolves.toEqual([testUser, stats, testUser]);
    expect(api.callsTo('POST /auth/refresh')).toHaveLength(1);
    expect(api.calls.filter((c) => c.authorization === 'Bearer new-token')).toHaveLength(3);
  });

  it('holds requests made during a refresh until the new token is there', async () => {
    const refresh = deferred<FakeReply>();
    const api = fakeApi({
      'GET /users/me': acceptsOnly('new-token', reply(200, testUser)),
      'GET /user/stats': acceptsOnly('new-token', reply(200, stats)),
      'POST /auth/refresh': () => refresh.promise,
    });
    const { store } = signedIn();
    const first = store.api.get('/users/me', userSchema);
    await vi.waitFor(() => expect(api.callsTo('POST /auth/refresh')).toHaveLength(1));
    const second = store.api.get('/user/stats', userStatsSchema);
    refresh.resolve(tokenAnswer('new-token'));
    await expect(Promise.all([first, second])).resolves.toEqual([testUser, stats]);
    expect(api.callsTo('GET /user/stats').map((c) => c.authorization)).toEqual(['Bearer new-token']);
  });

  it('gives up after one retry: a second 401 is the answer', async () => {
    const api = fakeApi({
      'GET /users/me': fail(401, 'Unauthorized'),
      'POST /auth/refresh': tokenAnswer('new-token'),
    });
    const { store } = signedIn();
    await expect(store.api.get('/users/me', userSchema)).rejects.toMatchObject({ status: 401 });
    expect(api.callsTo('POST /auth/refresh')).toHaveLength(1);
    expect(api.callsTo('GET /users/me')).toHaveLength(2);
  });

  it('when the refresh is refused (401): remembers the page, logs out and goes to /login (replace)', async () => {
    const api = fakeApi({
      'GET /user/stats': fail(401, 'Unauthorized'),
      'POST /auth/refresh': fail(401, 'Unauthorized'),
      'POST /auth/logout': reply(204),
    });
    const { store, navigator } = signedIn('/history?page=2');
    await expect(store.api.get('/user/stats', userStatsSchema)).rejects.toMatchObject({ status: 401 });
    await vi.waitFor(() => expect(navigator.navigate).toHaveBeenCalledWith('/login', { replace: true }));
    expect(api.callsTo('POST /auth/logout')).toHaveLength(1);
    expect(store.auth.accessToken).toBeNull();
    expect(store.auth.user).toBeNull();
    expect(store.auth.takeRedirect()).toBe('/history?page=2');
  });

  const transientFailures: [string, () => FakeReply, (error: unknown) => void][] = [
    [
      '429 Too Many Requests',
      () => fail(429, 'Too many attempts.'),
      (error) => expect(error).toMatchObject({ status: 429, serverMessage: 'Too many attempts.' }),
    ],
    [
      '503 Service Unavailable',
      () => fail(503, 'Unavailable'),
      (error) => expect(error).toMatchObject({ status: 503 }),
    ],
    [
      'a network error',
      () => {
        throw new TypeError('Failed to fetch');
      },
      (error) => expect(error).toEqual(new TypeError('Failed to fetch')),
    ],
  ];
  for (const [name, refreshAnswer, check] of transientFailures) {
    it(`keeps the session when the refresh fails with ${name}, rejecting with the refresh's error`, async () => {
      const api = fakeApi({
        'GET /user/stats': fail(401, 'Unauthorized'),
        'POST /auth/refresh': refreshAnswer,
        'POST /auth/logout': reply(204),
      });
      const { store, navigator } = signedIn();
      const error = await store.api.get('/user/stats', userStatsSchema).catch((e: unknown) => e);
      check(error);
      // Give a wrongly started logout the time to happen.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(api.callsTo('POST /auth/refresh')).toHaveLength(1);
      expect(api.callsTo('POST /auth/logout')).toHaveLength(0);
      expect(navigator.navigate).not.toHaveBeenCalled();
      expect(store.auth.accessToken).toBe('old-token');
      expect(store.auth.user).toEqual(testUser);
      expect(JSON.parse(localStorage.getItem(AUTH_STORAGE_KEY) ?? 'null')).toMatchObject({
        state: { accessToken: 'old-token' },
      });
      expect(store.auth.takeRedirect()).toBeNull();
    });
  }

  it('ends the session once when many requests fail to refresh together', async () => {
    const api = fakeApi({
      'GET /user/stats': fail(401, 'Unauthorized'),
      'POST /auth/refresh': fail(401, 'Unauthorized'),
      'POST /auth/logout': reply(204),
    });
    const { store, navigator } = signedIn();
    await Promise.allSettled([
      store.api.get('/user/stats', userStatsSchema),
      store.api.get('/user/stats', userStatsSchema),
    ]);
    await vi.waitFor(() => expect(navigator.navigate).toHaveBeenCalledTimes(1));
    expect(api.callsTo('POST /auth/refresh')).toHaveLength(1);
    expect(api.callsTo('POST /auth/logout')).toHaveLength(1);
  });

  for (const path of ['/auth/login', '/auth/signup', '/auth/refresh', '/auth/social/exchange']) {
    it(`never refreshes on a 401 from ${path}`, async () => {
      const api = fakeApi({
        'POST /auth/refresh': fail(401, 'Unauthorized'),
        [`POST ${path}`]: fail(401, 'Invalid credentials.'),
      });
      const { store, navigator } = signedIn();
      await expect(store.api.post(path, z.unknown(), { body: {} })).rejects.toMatchObject({
        status: 401,
        serverMessage: 'Invalid credentials.',
      });
      expect(api.calls).toHaveLength(1);
      expect(navigator.navigate).not.toHaveBeenCalled();
      expect(store.auth.accessToken).toBe('old-token');
    });
  }

  it('gives the AI client the same token and the same single refresh', async () => {
    const refresh = deferred<FakeReply>();
    const api = fakeApi({
      'GET /api/ai/v1/conversations': acceptsOnly('new-token', reply(200, [])),
      'GET /users/me': acceptsOnly('new-token', reply(200, testUser)),
      'POST /auth/refresh': () => refresh.promise,
    });
    const { store } = signedIn();
    const both = Promise.all([
      store.ai.get('/conversations', z.array(z.unknown())),
      store.api.get('/users/me', userSchema),
    ]);
    await vi.waitFor(() => expect(api.callsTo('POST /auth/refresh')).toHaveLength(1));
    refresh.resolve(tokenAnswer('new-token'));
    await expect(both).resolves.toEqual([[], testUser]);
    expect(api.callsTo('POST /auth/refresh')).toHaveLength(1);
    expect(api.callsTo('GET /api/ai/v1/conversations')[0]?.authorization).toBe('Bearer old-token');
  });
});
