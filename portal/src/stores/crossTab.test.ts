import { userSchema } from '@exploit-grid/api/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deferred, fail, fakeApi, reply, testUser, tokenAnswer, type FakeReply } from '../testing/fakeApi.ts';
import { fakeLocks } from '../testing/fakeLocks.ts';
import { fakeSockets } from '../testing/fakeSockets.ts';
import { AUTH_STORAGE_KEY, REFRESH_LOCK, type RefreshLocks } from './AuthStore.ts';
import { RootStore, type Navigator } from './RootStore.ts';

/** Tabs of one browser: stores sharing localStorage (and, when given, the Web Locks). */
const tabs: RootStore[] = [];
afterEach(() => {
  for (const tab of tabs.splice(0)) tab.dispose();
});

function openTab(locks?: RefreshLocks | null) {
  const store = new RootStore({ socketFactory: fakeSockets().factory, locks });
  const navigator: Navigator = { state: { location: { pathname: '/box', search: '' } }, navigate: vi.fn() };
  store.attachRouter(navigator);
  // The tab shows a signed-in page (/box): its session store exists and follows the other tabs from the start.
  void store.auth;
  tabs.push(store);
  return { store, navigator };
}

/** What the browser tells the other tabs when one of them writes the session. */
const storageEvent = () =>
  window.dispatchEvent(new StorageEvent('storage', { key: AUTH_STORAGE_KEY, storageArea: localStorage }));

/** The server's refresh with reuse detection: the cookie works once; presented again, the session ends. */
function rotatingRefresh(next: string) {
  let used = false;
  return (): FakeReply => {
    if (used) return fail(401, 'Unauthorized');
    used = true;
    return tokenAnswer(next);
  };
}

/** Answers 401 to any token but `token`. */
const meFor =
  (token: string) =>
  ({ authorization }: { authorization: string | null }) =>
    authorization === `Bearer ${token}` ? reply(200, testUser) : fail(401, 'Unauthorized');

describe('refreshing with several tabs', () => {
  it('refreshes once for two tabs refused together: the second takes the token the first stored', async () => {
    const api = fakeApi({
      'GET /users/me': meFor('token-2'),
      'POST /auth/refresh': rotatingRefresh('token-2'),
      'POST /auth/logout': reply(204),
    });
    const { locks, granted } = fakeLocks();
    const first = openTab(locks);
    first.store.auth.setAccessToken('token-1');
    first.store.auth.setUser(testUser);
    const second = openTab(locks);
    expect(second.store.auth.accessToken).toBe('token-1');

    await expect(
      Promise.all([
        first.store.api.get('/users/me', userSchema),
        second.store.api.get('/users/me', userSchema),
      ]),
    ).resolves.toEqual([testUser, testUser]);
    expect(granted).toEqual([REFRESH_LOCK, REFRESH_LOCK]);
    expect(api.callsTo('POST /auth/refresh')).toHaveLength(1);
    expect(api.callsTo('POST /auth/logout')).toHaveLength(0);
    expect(second.store.auth.accessToken).toBe('token-2');
    expect(second.store.auth.user).toEqual(testUser);
    expect(first.navigator.navigate).not.toHaveBeenCalled();
    expect(second.navigator.navigate).not.toHaveBeenCalled();
  });

  it('refreshes under the lock when no other tab has renewed the token', async () => {
    const api = fakeApi({ 'POST /auth/refresh': tokenAnswer('token-2') });
    const { locks, granted } = fakeLocks();
    const { store } = openTab(locks);
    store.auth.setAccessToken('token-1');
    await expect(store.auth.refresh()).resolves.toBe('token-2');
    expect(granted).toEqual([REFRESH_LOCK]);
    expect(api.callsTo('POST /auth/refresh')).toHaveLength(1);
  });

  it('shares one refresh among the requests of a tab while it waits for the lock', async () => {
    const api = fakeApi({ 'POST /auth/refresh': tokenAnswer('token-2') });
    const { locks } = fakeLocks();
    const held = deferred<void>();
    void locks.request(REFRESH_LOCK, () => held.promise);
    const { store } = openTab(locks);
    store.auth.setAccessToken('token-1');
    const both = Promise.all([store.auth.refresh(), store.auth.refresh()]);
    held.resolve();
    await expect(both).resolves.toEqual(['token-2', 'token-2']);
    expect(api.callsTo('POST /auth/refresh')).toHaveLength(1);
  });

  it("uses the browser's navigator.locks by default", async () => {
    fakeApi({ 'POST /auth/refresh': tokenAnswer('token-2') });
    const { locks, granted } = fakeLocks();
    Object.defineProperty(navigator, 'locks', { value: locks, configurable: true });
    try {
      const { store } = openTab();
      store.auth.setAccessToken('token-1');
      await store.auth.refresh();
      expect(granted).toEqual([REFRESH_LOCK]);
    } finally {
      Reflect.deleteProperty(navigator, 'locks');
    }
  });

  it('without Web Locks, still makes one refresh at a time within the tab', async () => {
    const refresh = deferred<FakeReply>();
    const api = fakeApi({ 'POST /auth/refresh': () => refresh.promise });
    const { store } = openTab(null);
    store.auth.setAccessToken('token-1');
    const both = Promise.all([store.auth.refresh(), store.auth.refresh()]);
    refresh.resolve(tokenAnswer('token-2'));
    await expect(both).resolves.toEqual(['token-2', 'token-2']);
    expect(api.callsTo('POST /auth/refresh')).toHaveLength(1);
  });
});

describe('following the other tabs', () => {
  it('takes the token and user another tab stored', async () => {
    const api = fakeApi({ 'GET /users/me': meFor('token-2') });
    const first = openTab(null);
    first.store.auth.setAccessToken('token-1');
    first.store.auth.setUser(testUser);
    const second = openTab(null);
    first.store.auth.setAccessToken('token-2');
    storageEvent();
    expect(second.store.auth.accessToken).toBe('token-2');
    expect(second.store.auth.user).toEqual(testUser);
    await expect(second.store.api.get('/users/me', userSchema)).resolves.toEqual(testUser);
    expect(api.callsTo('GET /users/me').map((c) => c.authorization)).toEqual(['Bearer token-2']);
  });

  it('signs out when another tab logged out, without logging out again', () => {
    const api = fakeApi({ 'POST /auth/logout': reply(204) });
    const first = openTab(null);
    first.store.auth.setAccessToken('token-1');
    first.store.auth.setUser(testUser);
    const second = openTab(null);
    first.store.auth.clear();
    storageEvent();
    expect(second.store.auth.accessToken).toBeNull();
    expect(second.store.auth.user).toBeNull();
    expect(api.callsTo('POST /auth/logout')).toHaveLength(0);
  });

  it('signs out when the storage was cleared', () => {
    fakeApi();
    const { store } = openTab(null);
    store.auth.setAccessToken('token-1');
    localStorage.clear();
    window.dispatchEvent(new StorageEvent('storage', { key: null, storageArea: localStorage }));
    expect(store.auth.accessToken).toBeNull();
  });

  it('loads the user when another tab has signed in before knowing it', async () => {
    const api = fakeApi({ 'GET /users/me': reply(200, testUser) });
    const first = openTab(null);
    const second = openTab(null);
    first.store.auth.setAccessToken('token-9');
    storageEvent();
    expect(second.store.auth.accessToken).toBe('token-9');
    await vi.waitFor(() => expect(second.store.auth.user).toEqual(testUser));
    expect(api.callsTo('GET /users/me').map((c) => c.authorization)).toEqual(['Bearer token-9']);
  });

  it('takes a fresher user for the same token, but not one it cannot read', () => {
    fakeApi();
    const { store } = openTab(null);
    store.auth.setAccessToken('token-1');
    store.auth.setUser(testUser);
    const richer = { ...testUser, credits: 99 };
    localStorage.setItem(
      AUTH_STORAGE_KEY,
      JSON.stringify({ version: 2, state: { accessToken: 'token-1', user: richer, box: null } }),
    );
    storageEvent();
    expect(store.auth.user).toEqual(richer);
    localStorage.setItem(
      AUTH_STORAGE_KEY,
      JSON.stringify({ version: 2, state: { accessToken: 'token-1', user: { id: 42 }, box: null } }),
    );
    storageEvent();
    expect(store.auth.user).toEqual(richer);
  });

  it('ignores a session it cannot read (another version) and other keys', () => {
    fakeApi();
    const { store } = openTab(null);
    store.auth.setAccessToken('token-1');
    localStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify({ version: 3, state: { token: 'x' } }));
    storageEvent();
    window.dispatchEvent(new StorageEvent('storage', { key: 'other', storageArea: localStorage }));
    expect(store.auth.accessToken).toBe('token-1');
  });
});
