import { GRID_NAMESPACE } from '@exploit-grid/api/contracts';
import { describe, expect, it, vi } from 'vitest';
import { fail, fakeApi, reply, testBox, testUser } from '../testing/fakeApi.ts';
import { fakeSockets } from '../testing/fakeSockets.ts';
import { AUTH_STORAGE_KEY } from './AuthStore.ts';
import { RootStore } from './RootStore.ts';

const box = testBox;
const saved = () => JSON.parse(localStorage.getItem(AUTH_STORAGE_KEY) ?? 'null') as unknown;
const newStore = () => new RootStore({ socketFactory: fakeSockets().factory });

describe('persisted session', () => {
  it('saves token, user and box under one key with version 2, and a reload restores them', () => {
    const first = newStore();
    first.auth.setAccessToken('token-1');
    first.auth.setUser(testUser);
    first.auth.setBox(box);
    expect(saved()).toEqual({ version: 2, state: { accessToken: 'token-1', user: testUser, box } });

    const reloaded = newStore();
    expect(reloaded.auth.accessToken).toBe('token-1');
    expect(reloaded.auth.user).toEqual(testUser);
    expect(reloaded.auth.box).toEqual(box);
  });

  it('starts empty from a session saved by an older version, and overwrites it', () => {
    localStorage.setItem(
      AUTH_STORAGE_KEY,
      JSON.stringify({ version: 1, state: { accessToken: 'old', user: testUser, box } }),
    );
    const store = newStore();
    expect(store.auth.accessToken).toBeNull();
    expect(store.auth.user).toBeNull();
    expect(store.auth.box).toBeNull();
    expect(saved()).toEqual({ version: 2, state: { accessToken: null, user: null, box: null } });
  });

  it('keeps the token but drops a saved user that no longer matches the contract', () => {
    localStorage.setItem(
      AUTH_STORAGE_KEY,
      JSON.stringify({ version: 2, state: { accessToken: 'token-1', user: { id: 42 }, box: null } }),
    );
    const store = newStore();
    expect(store.auth.accessToken).toBe('token-1');
    expect(store.auth.user).toBeNull();
  });

  it('keeps the token and user but drops a saved box that no longer matches the Box contract', () => {
    localStorage.setItem(
      AUTH_STORAGE_KEY,
      JSON.stringify({
        version: 2,
        state: { accessToken: 'token-1', user: testUser, box: { id: 'b1', hostname: 'box-zero' } },
      }),
    );
    const store = newStore();
    expect(store.auth.accessToken).toBe('token-1');
    expect(store.auth.user).toEqual(testUser);
    expect(store.auth.box).toBeNull();
  });

  it('starts empty from an unreadable saved session', () => {
    localStorage.setItem(AUTH_STORAGE_KEY, '{not json');
    expect(newStore().auth.accessToken).toBeNull();
  });

  it('clearing the token clears user and box too', () => {
    const store = newStore();
    store.auth.setAccessToken('token-1');
    store.auth.setUser(testUser);
    store.auth.setBox(box);
    store.auth.setAccessToken(null);
    expect(store.auth.user).toBeNull();
    expect(store.auth.box).toBeNull();
    expect(saved()).toEqual({ version: 2, state: { accessToken: null, user: null, box: null } });
  });
});

describe('logout', () => {
  async function signedInWithSockets() {
    const sockets = fakeSockets();
    const store = new RootStore({ socketFactory: sockets.factory });
    store.auth.setAccessToken('token-1');
    await store.auth.loadUser();
    store.realtime.start();
    return { store, sockets };
  }

  it('posts /auth/logout, tells the grid, closes both sockets and forgets the session', async () => {
    const api = fakeApi({ 'POST /auth/logout': reply(204), 'GET /users/me': reply(200, testUser) });
    const { store, sockets } = await signedInWithSockets();
    const [grid] = sockets.open(GRID_NAMESPACE);
    await store.auth.logout();
    expect(api.callsTo('POST /auth/logout')).toHaveLength(1);
    expect(grid).toBeDefined();
    expect(grid?.history).toEqual(['emit:logout', 'disconnect']);
    expect(sockets.sockets.every((s) => s.closed)).toBe(true);
    expect(store.auth.accessToken).toBeNull();
    expect(store.auth.user).toBeNull();
  });

  it('still logs out when the server does not confirm, and only logs the failure', async () => {
    fakeApi({ 'POST /auth/logout': fail(500, 'Boom'), 'GET /users/me': reply(200, testUser) });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { store, sockets } = await signedInWithSockets();
    await store.auth.logout();
    expect(warn).toHaveBeenCalled();
    expect(store.auth.accessToken).toBeNull();
    expect(sockets.sockets.every((s) => s.closed)).toBe(true);
  });
});

describe('post-login redirect', () => {
  it('is kept in sessionStorage and handed out once', () => {
    const store = newStore();
    store.auth.rememberRedirect('/history?page=2');
    expect(newStore().auth.takeRedirect()).toBe('/history?page=2');
    expect(store.auth.takeRedirect()).toBeNull();
  });

  it('never points at an auth page or another site', () => {
    const store = newStore();
    store.auth.rememberRedirect('/login?verified=true');
    expect(store.auth.takeRedirect()).toBeNull();
    store.auth.rememberRedirect('//evil.example/');
    expect(store.auth.takeRedirect()).toBeNull();
  });
});
