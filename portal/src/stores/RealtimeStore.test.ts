import { GRID_NAMESPACE, VPN_STATUS_NAMESPACE } from '@exploit-grid/api/contracts';
import { describe, expect, it, vi } from 'vitest';
import { deferred, fail, fakeApi, reply, testUser, tokenAnswer, type FakeReply } from '../testing/fakeApi.ts';
import { fakeSockets } from '../testing/fakeSockets.ts';
import { RootStore, type Navigator } from './RootStore.ts';

/** A store whose user is loaded; `routes` add to the fake API. */
async function signedIn(routes: Parameters<typeof fakeApi>[0] = {}) {
  const api = fakeApi({ 'GET /users/me': reply(200, testUser), ...routes });
  const sockets = fakeSockets();
  const store = new RootStore({ socketFactory: sockets.factory });
  store.auth.setAccessToken('token-1');
  await store.auth.loadUser();
  return { store, sockets, api };
}

describe('realtime connections', () => {
  it('opens /grid and /vpn-status with the token and user id on start, and closes both on stop', async () => {
    const { store, sockets } = await signedIn();
    store.realtime.start();
    expect(sockets.sockets.map((s) => [s.namespace, s.handshake])).toEqual([
      [GRID_NAMESPACE, { token: 'token-1', userId: testUser.id }],
      [VPN_STATUS_NAMESPACE, { token: 'token-1', userId: testUser.id }],
    ]);
    store.realtime.stop();
    expect(sockets.sockets.every((s) => s.closed)).toBe(true);
  });

  it('waits until the user is loaded before connecting, even with a user restored from storage', async () => {
    fakeApi({ 'GET /users/me': reply(200, testUser) });
    const sockets = fakeSockets();
    const store = new RootStore({ socketFactory: sockets.factory });
    store.auth.setAccessToken('token-1');
    store.auth.setUser(testUser);
    store.realtime.start();
    expect(sockets.sockets).toHaveLength(0);
    await store.auth.loadUser();
    expect(sockets.open(GRID_NAMESPACE)).toHaveLength(1);
  });

  it('is connected while the grid socket is, and not after a refused handshake', async () => {
    const { store, sockets } = await signedIn();
    store.realtime.start();
    const [grid] = sockets.open(GRID_NAMESPACE);
    grid?.receive('connect');
    expect(store.realtime.connected).toBe(true);
    grid?.receive('connect_error', new Error('timeout'));
    expect(store.realtime.connected).toBe(false);
  });

  it('asks the VPN status on connect and keeps the answer', async () => {
    const { store, sockets } = await signedIn();
    store.realtime.start();
    const [vpn] = sockets.open(VPN_STATUS_NAMESPACE);
    vpn?.receive('connect');
    expect(vpn?.emitted.map((e) => e.event)).toEqual(['requestStatus']);
    vpn?.receive('status', { status: true });
    expect(store.realtime.vpnConnected).toBe(true);
  });

  it('asks for the initial grid state when the server is ready for it', async () => {
    const { store, sockets } = await signedIn();
    store.realtime.start();
    const [grid] = sockets.open(GRID_NAMESPACE);
    grid?.receive('readyForState');
    expect(grid?.emitted.map((e) => e.event)).toEqual(['getInitialState']);
  });

  it('reopens both sockets with the fresh token after a refresh', async () => {
    const { store, sockets } = await signedIn({ 'POST /auth/refresh': tokenAnswer('token-2') });
    store.realtime.start();
    await store.auth.refresh();
    expect(sockets.sockets.slice(0, 2).every((s) => s.closed)).toBe(true);
    expect(
      [...sockets.open(GRID_NAMESPACE), ...sockets.open(VPN_STATUS_NAMESPACE)].map((s) => s.handshake.token),
    ).toEqual(['token-2', 'token-2']);
  });

  it('renews the token once when the grid refuses the handshake as Unauthorized', async () => {
    const { store, sockets, api } = await signedIn({ 'POST /auth/refresh': tokenAnswer('token-2') });
    store.realtime.start();
    const [grid] = sockets.open(GRID_NAMESPACE);
    grid?.receive('connect_error', new Error('Unauthorized'));
    grid?.receive('connect_error', new Error('Unauthorized'));
    await vi.waitFor(() => expect(sockets.open(GRID_NAMESPACE)[0]?.handshake.token).toBe('token-2'));
    expect(api.callsTo('POST /auth/refresh')).toHaveLength(1);
  });

  it('ends the session when the refresh after a refused handshake is refused (401)', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { store, sockets, api } = await signedIn({
      'POST /auth/refresh': fail(401, 'Unauthorized'),
      'POST /auth/logout': reply(204),
    });
    const navigator: Navigator = { state: { location: { pathname: '/box', search: '' } }, navigate: vi.fn() };
    store.attachRouter(navigator);
    store.realtime.start();
    sockets.open(GRID_NAMESPACE)[0]?.receive('connect_error', new Error('Unauthorized'));
    await vi.waitFor(() => expect(navigator.navigate).toHaveBeenCalledWith('/login', { replace: true }));
    expect(api.callsTo('POST /auth/logout')).toHaveLength(1);
    expect(store.auth.accessToken).toBeNull();
  });

  it.each([
    ['429', () => fail(429, 'Too many attempts.')],
    ['503', () => fail(503, 'Unavailable')],
    [
      'a network error',
      () => {
        throw new TypeError('Failed to fetch');
      },
    ],
  ])(
    'keeps the session when that refresh fails with %s, and still renews only once per token',
    async (_name, refreshAnswer) => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      const { store, sockets, api } = await signedIn({
        'POST /auth/refresh': refreshAnswer,
        'POST /auth/logout': reply(204),
      });
      const navigator: Navigator = {
        state: { location: { pathname: '/box', search: '' } },
        navigate: vi.fn(),
      };
      store.attachRouter(navigator);
      store.realtime.start();
      const [grid] = sockets.open(GRID_NAMESPACE);
      grid?.receive('connect_error', new Error('Unauthorized'));
      await vi.waitFor(() => expect(warn).toHaveBeenCalled());
      grid?.receive('connect_error', new Error('Unauthorized'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(api.callsTo('POST /auth/refresh')).toHaveLength(1);
      expect(api.callsTo('POST /auth/logout')).toHaveLength(0);
      expect(navigator.navigate).not.toHaveBeenCalled();
      expect(store.auth.accessToken).toBe('token-1');
      expect(store.auth.user).toEqual(testUser);
    },
  );
});

describe('live balance', () => {
  it('puts the balance the grid pushes into the user, and persists it', async () => {
    const { store, sockets } = await signedIn();
    store.realtime.start();
    const [grid] = sockets.open(GRID_NAMESPACE);
    grid?.receive('balance', { credits: 2012.5, freeCredits: 0.25 });
    expect(store.auth.user).toEqual({ ...testUser, credits: 2012.5, freeCredits: 0.25 });
    await vi.waitFor(() =>
      expect(JSON.parse(localStorage.getItem('exploit-grid.auth') ?? '{}').state.user.credits).toBe(2012.5),
    );
  });

  it('keeps a balance pushed while the user reloads over the older one that answer carries', async () => {
    const me = deferred<FakeReply>();
    const { store, sockets, api } = await signedIn();
    store.realtime.start();
    const [grid] = sockets.open(GRID_NAMESPACE);
    api.on('GET /users/me', () => me.promise);
    const reload = store.auth.loadUser();
    grid?.receive('balance', { credits: 40, freeCredits: 1 });
    me.resolve(reply(200, { ...testUser, handle: 'zero_cool_2' }));
    await reload;
    expect(store.auth.user).toEqual({ ...testUser, handle: 'zero_cool_2', credits: 40, freeCredits: 1 });
    // The next reload is believed again.
    api.on('GET /users/me', reply(200, testUser));
    await store.auth.loadUser();
    expect(store.auth.user).toEqual(testUser);
  });

  it('is ignored without a user', () => {
    fakeApi();
    const store = new RootStore({ socketFactory: fakeSockets().factory });
    store.auth.applyBalance({ credits: 1, freeCredits: 1 });
    expect(store.auth.user).toBeNull();
  });
});
