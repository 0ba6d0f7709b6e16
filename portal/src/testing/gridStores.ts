import {
  GRID_NAMESPACE,
  VPN_STATUS_NAMESPACE,
  type GridInitialState,
  type User,
} from '@exploit-grid/api/contracts';
import { afterEach, beforeEach, vi } from 'vitest';
import { RootStore } from '../stores/RootStore.ts';
import { fakeApi, reply, testUser, type FakeHandler, type FakeReply } from './fakeApi.ts';
import { fakeSockets, type FakeSocket } from './fakeSockets.ts';
import { toast } from './toasts.ts';

/** What the tests of the Grid's stores (GridStore, MatchmakingStore, NotificationsStore) share. */

export const ESTIMATE = 'GET /attack/queue/estimate';

export const joey = { id: '00000000-0000-4000-8000-0000000000d3', handle: 'joey' };
export const otherUser: User = {
  ...testUser,
  id: '00000000-0000-4000-8000-0000000000e4',
  handle: 'phantom_phreak',
};

const emptyState: GridInitialState = { players: [], attacks: [], globalChatMessages: [], blockedUsers: [] };

export function only(sockets: FakeSocket[]): FakeSocket {
  const [socket] = sockets;
  if (sockets.length !== 1 || !socket) throw new Error(`expected one open socket, got ${sockets.length}`);
  return socket;
}

const stores: RootStore[] = [];

/**
 * For the calling test file: warnings kept quiet, the toasts forgotten before each test, and the stores
 * closed after it (signing out resets them: their intervals and timeouts end with the test).
 */
export function closeGridStoresAfterEach() {
  beforeEach(() => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    for (const spy of Object.values(toast)) spy.mockClear();
  });
  afterEach(() => {
    for (const store of stores.splice(0)) {
      store.realtime.stop();
      store.auth.setAccessToken(null);
      store.dispose();
    }
    vi.useRealTimers();
  });
}

/**
 * A store whose user is loaded and whose sockets are open (fakes); the queue estimate answers "not queued"
 * unless `routes` says otherwise.
 */
export async function onGrid(
  options: { routes?: Record<string, FakeReply | FakeHandler>; user?: User } = {},
) {
  const api = fakeApi({
    'GET /users/me': reply(200, options.user ?? testUser),
    [ESTIMATE]: reply(200, { estimateSeconds: -1 }),
    ...options.routes,
  });
  const sockets = fakeSockets();
  const playSound = vi.fn<(url: string) => void>();
  const store = new RootStore({ socketFactory: sockets.factory, playSound });
  stores.push(store);
  store.auth.setAccessToken('token-1');
  await store.auth.loadUser();
  store.realtime.start();
  const grid = only(sockets.open(GRID_NAMESPACE));
  const vpn = only(sockets.open(VPN_STATUS_NAMESPACE));
  return { store, api, sockets, grid, vpn, playSound };
}

/** A second page (store) on the same storage, as after a reload: the session comes back from it. */
export function reload() {
  const sockets = fakeSockets();
  const store = new RootStore({ socketFactory: sockets.factory, playSound: vi.fn() });
  stores.push(store);
  return { store, sockets };
}

/** The grid socket connects and the server sends its initial state. */
export function enter(grid: FakeSocket, state: Partial<GridInitialState> = {}) {
  grid.receive('connect');
  grid.receive('initialState', { ...emptyState, ...state });
}

/** Lets pending requests (fetch, JSON bodies) settle; setImmediate is never faked here. */
export async function settle() {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

export function fakeClock() {
  vi.useFakeTimers({
    toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
    now: new Date('2026-03-01T12:00:00.000Z'),
  });
}
