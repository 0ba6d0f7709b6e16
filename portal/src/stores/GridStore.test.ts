import {
  GRID_NAMESPACE,
  VPN_STATUS_NAMESPACE,
  type GridInitialState,
  type MatchExpiryReason,
  type User,
} from '@exploit-grid/api/contracts';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  CLEAR_QUEUE_STATE_EVENT,
  DISMISS_FAILED,
  ENGAGE_FAILED,
  GRID_NOT_READY,
  MATCH_EXPIRED_NO_RESPONSE,
  MATCH_EXPIRED_TEXTS,
  QUEUE_JOIN_FAILED,
  QUEUE_JOINED,
  SOUNDS,
  TARGET_INFO_FAILED,
  VPN_REQUIRED_TO_QUEUE,
} from '../strings/grid.ts';
import { fail, fakeApi, reply, testUser, type FakeHandler, type FakeReply } from '../testing/fakeApi.ts';
import { fakeSockets, type FakeSocket } from '../testing/fakeSockets.ts';
import {
  acid,
  crash,
  gridAttack,
  gridNotification as notification,
  gridPlayer,
  matchProposal,
  me,
  targetBox,
  targetInfo,
} from '../testing/grid.ts';
import { AUTH_STORAGE_KEY } from './AuthStore.ts';
import { RootStore } from './RootStore.ts';

const toasts = vi.hoisted(() => ({
  show: vi.fn<(message: string, options?: { durationMs?: number }) => void>(),
  info: vi.fn<(message: string, options?: { durationMs?: number }) => void>(),
  success: vi.fn<(message: string, options?: { durationMs?: number }) => void>(),
  error: vi.fn<(message: string, options?: { durationMs?: number }) => void>(),
}));
vi.mock('../notifications/toast.ts', () => ({ toast: toasts }));

// ---- fixtures -------------------------------------------------------------------------------

const ESTIMATE = 'GET /attack/queue/estimate';
const JOIN = 'POST /attack/queue/join';
const ENGAGE = 'POST /attack/queue/engage';
const DISMISS = 'POST /attack/queue/dismiss';

const joey = { id: '00000000-0000-4000-8000-0000000000d3', handle: 'joey' };
const otherUser: User = { ...testUser, id: '00000000-0000-4000-8000-0000000000e4', handle: 'phantom_phreak' };

const emptyState: GridInitialState = { players: [], attacks: [], globalChatMessages: [], blockedUsers: [] };

function only(sockets: FakeSocket[]): FakeSocket {
  const [socket] = sockets;
  if (sockets.length !== 1 || !socket) throw new Error(`expected one open socket, got ${sockets.length}`);
  return socket;
}

const stores: RootStore[] = [];

/**
 * A store whose user is loaded and whose sockets are open (fakes); the queue estimate answers "not queued"
 * unless `routes` says otherwise.
 */
async function onGrid(options: { routes?: Record<string, FakeReply | FakeHandler>; user?: User } = {}) {
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

/** The grid socket connects and the server sends its initial state. */
function enter(grid: FakeSocket, state: Partial<GridInitialState> = {}) {
  grid.receive('connect');
  grid.receive('initialState', { ...emptyState, ...state });
}

/** Lets pending requests (fetch, JSON bodies) settle; setImmediate is never faked here. */
async function settle() {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

function fakeClock() {
  vi.useFakeTimers({
    toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
    now: new Date('2026-03-01T12:00:00.000Z'),
  });
}

beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  for (const spy of Object.values(toasts)) spy.mockClear();
});

afterEach(() => {
  // Signing out resets the grid store: its intervals and timeouts end with the test.
  for (const store of stores.splice(0)) {
    store.realtime.stop();
    store.auth.setAccessToken(null);
    store.dispose();
  }
  vi.useRealTimers();
});

// ---- presence ----------------------------------------------------------------------------------

describe('presence and the initial state', () => {
  it('fills players, attacks and blocked users from initialState and marks the grid initialized', async () => {
    const { store, grid } = await onGrid();
    const running = gridAttack(acid, crash);
    expect(store.grid.initialized).toBe(false);
    expect(store.grid.findBlocker).toBe('connecting');
    enter(grid, {
      players: [gridPlayer(acid, { mmr: 1200 }), gridPlayer(crash, { mmr: 1100 }), gridPlayer(me)],
      attacks: [running],
      blockedUsers: [joey],
    });
    expect(store.grid.initialized).toBe(true);
    expect(store.grid.onlinePlayers.map((p) => p.handle)).toEqual([acid.handle, crash.handle, me.handle]);
    expect([...store.grid.attacks.values()]).toEqual([running]);
    expect(store.grid.blockedUsers).toEqual([joey]);
    expect(store.grid.isBlocked(joey.id)).toBe(true);
    expect(store.grid.findBlocker).toBeNull();
  });

  it('is not ready again after the socket disconnects', async () => {
    const { store, grid } = await onGrid();
    enter(grid);
    expect(store.grid.findBlocker).toBeNull();
    grid.receive('disconnect');
    expect(store.grid.initialized).toBe(false);
    expect(store.grid.findBlocker).toBe('connecting');
  });

  it('adds or replaces a player on playerUpdated and removes them on playerOffline', async () => {
    const { store, grid } = await onGrid();
    enter(grid, { players: [gridPlayer(acid)] });
    grid.receive('playerUpdated', gridPlayer(crash, { country: 'Germany' }));
    grid.receive('playerUpdated', gridPlayer(acid, { mmr: 1234 }));
    expect(store.grid.players.size).toBe(2);
    expect(store.grid.players.get(acid.id)?.mmr).toBe(1234);
    expect(store.grid.players.get(crash.id)?.country).toBe('Germany');
    grid.receive('playerOffline', acid.id);
    expect([...store.grid.players.keys()]).toEqual([crash.id]);
  });

  it("keeps the operator's own MMR (the top bar's) in step with playerUpdated", async () => {
    const { store, grid } = await onGrid();
    enter(grid, { players: [gridPlayer(me), gridPlayer(acid)] });
    grid.receive('playerUpdated', gridPlayer(acid, { mmr: 980 }));
    expect(store.auth.user?.mmr).toBe(testUser.mmr);
    grid.receive('playerUpdated', gridPlayer(me, { mmr: 1016 }));
    expect(store.auth.user?.mmr).toBe(1016);
  });

  it('closes the popup of a player who goes offline, and only theirs', async () => {
    const { store, grid } = await onGrid({
      routes: { [`GET /attack/target-info/${crash.id}`]: reply(200, targetInfo(crash, 50)) },
    });
    enter(grid, { players: [gridPlayer(acid), gridPlayer(crash)] });
    store.grid.select(crash.id);
    await vi.waitFor(() => expect(store.grid.selection?.info?.defense).toBe(50));
    grid.receive('playerOffline', acid.id);
    expect(store.grid.selection?.playerId).toBe(crash.id);
    grid.receive('playerOffline', crash.id);
    expect(store.grid.selection).toBeNull();
  });
});

// ---- attacks -------------------------------------------------------------------------------

describe('attacks', () => {
  it('makes an attack of mine the active one on attackStarted', async () => {
    const { store, grid } = await onGrid();
    enter(grid);
    const mine = gridAttack(me, acid, { box: targetBox() });
    grid.receive('attackStarted', mine);
    expect(store.grid.activeAttack).toEqual(mine);
    expect(store.grid.attacks.get(mine.id)).toEqual(mine);
    expect(store.grid.findBlocker).toBe('attacking');
  });

  it("only adds other players' attacks to the list", async () => {
    const { store, grid } = await onGrid();
    enter(grid);
    const theirs = gridAttack(acid, crash);
    grid.receive('attackStarted', theirs);
    expect(store.grid.attacks.get(theirs.id)).toEqual(theirs);
    expect(store.grid.activeAttack).toBeNull();
    expect(store.grid.incomingAttack).toBeNull();
    expect(store.grid.findBlocker).toBeNull();
  });

  it('shows an attack on my box as incoming', async () => {
    const { store, grid } = await onGrid();
    enter(grid);
    const inbound = gridAttack(acid, me);
    grid.receive('attackStarted', inbound);
    expect(store.grid.incomingAttack).toEqual(inbound);
    expect(store.grid.findBlocker).toBe('defending');
  });

  it('on attackEnded removes the attack, clears the active one, shows a won result with the victory sound for 5 s', async () => {
    fakeClock();
    const { store, grid, playSound } = await onGrid();
    enter(grid);
    const mine = gridAttack(me, acid);
    grid.receive('attackStarted', mine);
    grid.receive('attackEnded', { attackId: mine.id, result: 'OWNED', winnerId: me.id, loserId: acid.id });
    expect(store.grid.attacks.has(mine.id)).toBe(false);
    expect(store.grid.activeAttack).toBeNull();
    expect(store.grid.attackResult).toEqual({
      attackId: mine.id,
      outcome: 'OWNED',
      won: true,
      opponent: acid.handle,
      rated: true,
    });
    expect(playSound.mock.calls).toEqual([[SOUNDS.victory]]);
    vi.advanceTimersByTime(4999);
    expect(store.grid.attackResult).not.toBeNull();
    vi.advanceTimersByTime(1);
    expect(store.grid.attackResult).toBeNull();
  });

  it('shows a lost result with the defeat sound to the defender', async () => {
    const { store, grid, playSound } = await onGrid();
    enter(grid);
    const inbound = gridAttack(acid, me);
    grid.receive('attackStarted', inbound);
    grid.receive('attackEnded', {
      attackId: inbound.id,
      result: 'FOOTHOLD',
      winnerId: acid.id,
      loserId: me.id,
    });
    expect(store.grid.attackResult).toEqual({
      attackId: inbound.id,
      outcome: 'FOOTHOLD',
      won: false,
      opponent: acid.handle,
      rated: true,
    });
    expect(playSound.mock.calls).toEqual([[SOUNDS.defeat]]);
    expect(store.grid.incomingAttack).toBeNull();
  });

  it('shows no overlay and plays nothing for a CANCELLED attack', async () => {
    const { store, grid, playSound } = await onGrid();
    enter(grid);
    const mine = gridAttack(me, acid);
    grid.receive('attackStarted', mine);
    grid.receive('attackEnded', { attackId: mine.id, result: 'CANCELLED', winnerId: null, loserId: null });
    expect(store.grid.activeAttack).toBeNull();
    expect(store.grid.attackResult).toBeNull();
    expect(playSound).not.toHaveBeenCalled();
  });

  it("shows no overlay for the end of other players' attacks", async () => {
    const { store, grid, playSound } = await onGrid();
    const theirs = gridAttack(acid, crash);
    enter(grid, { attacks: [theirs] });
    grid.receive('attackEnded', {
      attackId: theirs.id,
      result: 'OWNED',
      winnerId: acid.id,
      loserId: crash.id,
    });
    expect(store.grid.attacks.size).toBe(0);
    expect(store.grid.attackResult).toBeNull();
    expect(playSound).not.toHaveBeenCalled();
  });

  it("updates the active attack's box on attackBoxUpdated", async () => {
    const { store, grid } = await onGrid();
    enter(grid);
    const mine = gridAttack(me, acid);
    const box = targetBox();
    grid.receive('attackStarted', mine);
    grid.receive('attackBoxUpdated', { attackId: mine.id, box });
    expect(store.grid.activeAttack?.box).toEqual(box);
    expect(store.grid.attacks.get(mine.id)?.box).toEqual(box);
    // Another attack's box leaves mine alone.
    grid.receive('attackBoxUpdated', {
      attackId: gridAttack(acid, crash).id,
      box: { ...box, ip: '10.66.0.99' },
    });
    expect(store.grid.activeAttack?.box?.ip).toBe(box.ip);
  });

  it('cancels the active attack with POST /attack/{id}/cancel', async () => {
    const mine = gridAttack(me, acid);
    const { store, grid, api } = await onGrid({ routes: { [`POST /attack/${mine.id}/cancel`]: reply(204) } });
    enter(grid);
    grid.receive('attackStarted', mine);
    await store.grid.cancelAttack();
    expect(api.callsTo(`POST /attack/${mine.id}/cancel`)).toHaveLength(1);
    expect(toasts.error).not.toHaveBeenCalled();
  });

  it("toasts 'Failed to cancel attack: {message}' when the cancel is refused", async () => {
    const mine = gridAttack(me, acid);
    const { store, grid } = await onGrid({
      routes: { [`POST /attack/${mine.id}/cancel`]: fail(409, 'This attack has already ended.') },
    });
    enter(grid);
    grid.receive('attackStarted', mine);
    await store.grid.cancelAttack();
    expect(toasts.error).toHaveBeenCalledWith('Failed to cancel attack: This attack has already ended.');
  });
});

// ---- persistence ---------------------------------------------------------------------------

describe('persisted grid state', () => {
  /** A second page (store) on the same storage, as after a reload: the session comes back from it. */
  function reload() {
    const sockets = fakeSockets();
    const store = new RootStore({ socketFactory: sockets.factory, playSound: vi.fn() });
    stores.push(store);
    return { store, sockets };
  }

  it('keeps the active attack across a reload for the same operator', async () => {
    const first = await onGrid();
    enter(first.grid);
    const mine = gridAttack(me, acid, { box: targetBox() });
    first.grid.receive('attackStarted', mine);
    const { store } = reload();
    expect(store.auth.user?.id).toBe(me.id);
    expect(store.grid.activeAttack).toEqual(mine);
  });

  it('keeps the match proposal across a reload for the same operator', async () => {
    const first = await onGrid();
    enter(first.grid);
    const match = matchProposal();
    first.grid.receive('match:found', match);
    const { store } = reload();
    expect(store.grid.proposal).toEqual(match);
  });

  it('gives nothing of it to another operator signing in on the same browser', async () => {
    const first = await onGrid();
    enter(first.grid);
    first.grid.receive('attackStarted', gridAttack(me, acid));
    first.grid.receive('match:found', matchProposal());
    expect(first.store.grid.activeAttack).not.toBeNull();
    localStorage.removeItem(AUTH_STORAGE_KEY);
    fakeApi({ 'GET /users/me': reply(200, otherUser) });
    const { store } = reload();
    store.auth.setAccessToken('token-2');
    await store.auth.loadUser();
    expect(store.auth.user?.id).toBe(otherUser.id);
    expect(store.grid.activeAttack).toBeNull();
    expect(store.grid.proposal).toBeNull();
  });

  it('keeps the restored active attack after initialState only while it still runs', async () => {
    const first = await onGrid();
    enter(first.grid);
    const mine = gridAttack(me, acid, { box: targetBox() });
    first.grid.receive('attackStarted', mine);

    const kept = reload();
    kept.store.realtime.start();
    await kept.store.auth.loadUser();
    await vi.waitFor(() => expect(kept.sockets.open(GRID_NAMESPACE)).toHaveLength(1));
    // The broadcast list carries no box: the one the attacker already had stays.
    enter(only(kept.sockets.open(GRID_NAMESPACE)), { attacks: [{ ...mine, box: null }] });
    expect(kept.store.grid.activeAttack).toEqual(mine);

    const gone = reload();
    expect(gone.store.grid.activeAttack).toEqual(mine);
    gone.store.realtime.start();
    await gone.store.auth.loadUser();
    await vi.waitFor(() => expect(gone.sockets.open(GRID_NAMESPACE)).toHaveLength(1));
    enter(only(gone.sockets.open(GRID_NAMESPACE)), { attacks: [gridAttack(acid, crash)] });
    expect(gone.store.grid.activeAttack).toBeNull();
  });

  it('keeps a restored match proposal only when the server sends it again before the state', async () => {
    const first = await onGrid();
    enter(first.grid);
    const match = matchProposal();
    first.grid.receive('match:found', match);

    const kept = reload();
    kept.store.realtime.start();
    await kept.store.auth.loadUser();
    await vi.waitFor(() => expect(kept.sockets.open(GRID_NAMESPACE)).toHaveLength(1));
    const socket = only(kept.sockets.open(GRID_NAMESPACE));
    socket.receive('readyForState');
    socket.receive('match:found', match);
    enter(socket);
    expect(kept.store.grid.proposal).toEqual(match);
    expect(toasts.success).toHaveBeenCalledTimes(1); // the first page's, not again

    // Ended while the page was away (the other dismissed or left): not sent again, so gone, quietly.
    const ended = reload();
    expect(ended.store.grid.proposal).toEqual(match);
    ended.store.realtime.start();
    await ended.store.auth.loadUser();
    await vi.waitFor(() => expect(ended.sockets.open(GRID_NAMESPACE)).toHaveLength(1));
    const again = only(ended.sockets.open(GRID_NAMESPACE));
    again.receive('readyForState');
    enter(again);
    expect(ended.store.grid.proposal).toBeNull();
    expect(toasts.error).not.toHaveBeenCalled();
  });
});

// ---- Find a Mark and the queue -------------------------------------------------------------------

describe('Find a Mark', () => {
  it('refuses before the grid is ready, with no request', async () => {
    const { store, grid, vpn, api } = await onGrid({
      routes: { [JOIN]: reply(200, { estimateSeconds: 5, position: 1, queued: true }) },
    });
    vpn.receive('status', { status: true });
    await store.grid.findMark();
    grid.receive('connect');
    await store.grid.findMark();
    expect(toasts.error.mock.calls).toEqual([[GRID_NOT_READY], [GRID_NOT_READY]]);
    expect(api.callsTo(JOIN)).toHaveLength(0);
    expect(store.grid.queue).toBeNull();
  });

  it('refuses without the VPN, with no request', async () => {
    const { store, grid, vpn, api } = await onGrid({
      routes: { [JOIN]: reply(200, { estimateSeconds: 5, position: 1, queued: true }) },
    });
    enter(grid);
    vpn.receive('status', { status: false });
    await store.grid.findMark();
    expect(toasts.error.mock.calls).toEqual([[VPN_REQUIRED_TO_QUEUE]]);
    expect(api.callsTo(JOIN)).toHaveLength(0);
  });

  it('joins the queue, counts the estimate down every second and polls it every 10 s until it is -1', async () => {
    fakeClock();
    const { store, grid, vpn, api } = await onGrid({
      routes: { [JOIN]: reply(200, { estimateSeconds: 42, position: 2, queued: true }) },
    });
    enter(grid);
    vpn.receive('status', { status: true });
    await settle();
    // initialState asked once whether this operator was still queued from before: no.
    expect(api.callsTo(ESTIMATE)).toHaveLength(1);
    expect(store.grid.queue).toBeNull();

    await store.grid.findMark();
    expect(api.callsTo(JOIN)).toHaveLength(1);
    expect(store.grid.queue).toEqual({ position: 2, secondsLeft: 42 });
    expect(store.grid.findBlocker).toBe('queued');
    expect(toasts.success).toHaveBeenCalledWith(QUEUE_JOINED, { durationMs: 5000 });

    api.on(ESTIMATE, reply(200, { estimateSeconds: 30 }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(store.grid.queue?.secondsLeft).toBe(41);
    await vi.advanceTimersByTimeAsync(8000);
    expect(store.grid.queue?.secondsLeft).toBe(33);
    expect(api.callsTo(ESTIMATE)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    expect(api.callsTo(ESTIMATE)).toHaveLength(2);
    // The poll's 30 replaces the local 32 (the tick of the same instant may already have counted it down).
    const polled = store.grid.queue?.secondsLeft ?? NaN;
    expect(polled).toBeGreaterThanOrEqual(29);
    expect(polled).toBeLessThanOrEqual(30);
    expect(store.grid.queue?.position).toBe(2);
    await vi.advanceTimersByTimeAsync(3000);
    expect(store.grid.queue?.secondsLeft).toBe(polled - 3);

    api.on(ESTIMATE, reply(200, { estimateSeconds: -1 }));
    await vi.advanceTimersByTimeAsync(7000);
    await settle();
    expect(api.callsTo(ESTIMATE)).toHaveLength(3);
    expect(store.grid.queue).toBeNull();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(api.callsTo(ESTIMATE)).toHaveLength(3);
    expect(store.grid.findBlocker).toBeNull();
  });

  it('shows the server message when the join is refused', async () => {
    const { store, grid, vpn } = await onGrid({
      routes: { [JOIN]: fail(400, 'Your box must be running to queue.') },
    });
    enter(grid);
    vpn.receive('status', { status: true });
    await store.grid.findMark();
    expect(toasts.error.mock.calls).toEqual([['Your box must be running to queue.']]);
    expect(store.grid.queue).toBeNull();
    expect(store.grid.joiningQueue).toBe(false);
    expect(store.grid.findBlocker).toBeNull();
  });

  it("shows 'Could not join matchmaking queue. Please try again.' when the server says nothing", async () => {
    const { store, grid, vpn } = await onGrid({ routes: { [JOIN]: reply(500) } });
    enter(grid);
    vpn.receive('status', { status: true });
    await store.grid.findMark();
    expect(toasts.error.mock.calls).toEqual([[QUEUE_JOIN_FAILED]]);
    expect(store.grid.queue).toBeNull();
  });

  it('leaves the queue with POST /attack/queue/leave', async () => {
    const { store, grid, vpn, api } = await onGrid({
      routes: {
        [JOIN]: reply(200, { estimateSeconds: 42, position: 1, queued: true }),
        'POST /attack/queue/leave': reply(204),
      },
    });
    enter(grid);
    vpn.receive('status', { status: true });
    await store.grid.findMark();
    expect(store.grid.queue).not.toBeNull();
    await store.grid.leaveQueue();
    expect(api.callsTo('POST /attack/queue/leave')).toHaveLength(1);
    expect(store.grid.queue).toBeNull();
  });

  it('leaves the queue on queue:noMatch and shows the server message for 8 s', async () => {
    const { store, grid, vpn } = await onGrid({
      routes: { [JOIN]: reply(200, { estimateSeconds: 42, position: 1, queued: true }) },
    });
    enter(grid);
    vpn.receive('status', { status: true });
    await store.grid.findMark();
    grid.receive('queue:noMatch', { message: 'No opponent within range right now.' });
    expect(store.grid.queue).toBeNull();
    expect(toasts.show).toHaveBeenCalledWith('No opponent within range right now.', { durationMs: 8000 });
  });
});

// ---- match proposals -----------------------------------------------------------------------

describe('match proposals', () => {
  /** Queued (estimate 42 s), then the server proposes a match. */
  async function queuedThenMatched(
    match = matchProposal(),
    routes: Record<string, FakeReply | FakeHandler> = {},
  ) {
    const setup = await onGrid({
      routes: { [JOIN]: reply(200, { estimateSeconds: 42, position: 1, queued: true }), ...routes },
    });
    enter(setup.grid);
    setup.vpn.receive('status', { status: true });
    await setup.store.grid.findMark();
    setup.grid.receive('match:found', match);
    return { ...setup, match };
  }

  it('stores the proposal, leaves the queue and toasts the opponent for 8 s; the same proposal again is ignored', async () => {
    const { store, grid, match } = await queuedThenMatched(matchProposal({ attacker: acid, defender: me }));
    expect(store.grid.proposal).toEqual(match);
    expect(store.grid.queue).toBeNull();
    expect(store.grid.findBlocker).toBe('matched');
    expect(toasts.success).toHaveBeenCalledWith('Match found: acid_burn. Press Engage to start.', {
      durationMs: 8000,
    });
    toasts.success.mockClear();
    grid.receive('match:found', { ...match });
    expect(toasts.success).not.toHaveBeenCalled();
  });

  it('is not queued when the match came before the join answer', async () => {
    let answer: (reply: FakeReply) => void = () => undefined;
    const { store, grid, vpn } = await onGrid({
      routes: { [JOIN]: () => new Promise<FakeReply>((resolve) => (answer = resolve)) },
    });
    enter(grid);
    vpn.receive('status', { status: true });
    const joining = store.grid.findMark();
    await settle();
    grid.receive('match:found', matchProposal());
    answer(reply(200, { estimateSeconds: 42, position: 1, queued: true }));
    await joining;
    expect(store.grid.proposal).not.toBeNull();
    expect(store.grid.queue).toBeNull();
  });

  it('drops a match found while leaving the queue (the leave ended it)', async () => {
    let answer: (reply: FakeReply) => void = () => undefined;
    const { store, grid, vpn } = await onGrid({
      routes: {
        [JOIN]: reply(200, { estimateSeconds: 42, position: 1, queued: true }),
        'POST /attack/queue/leave': () => new Promise<FakeReply>((resolve) => (answer = resolve)),
      },
    });
    enter(grid);
    vpn.receive('status', { status: true });
    await store.grid.findMark();
    const leaving = store.grid.leaveQueue();
    await settle();
    grid.receive('match:found', matchProposal());
    answer(reply(204));
    await leaving;
    expect(store.grid.proposal).toBeNull();
    expect(store.grid.queue).toBeNull();
  });

  it('counts down to expiresAt every 500 ms and expires locally at 0, raising clearQueueState', async () => {
    fakeClock();
    const cleared = vi.fn<() => void>();
    window.addEventListener(CLEAR_QUEUE_STATE_EVENT, cleared);
    onTestFinished(() => window.removeEventListener(CLEAR_QUEUE_STATE_EVENT, cleared));
    const { store } = await queuedThenMatched(
      matchProposal({ expiresAt: new Date(Date.now() + 10_000).toISOString() }),
    );
    expect(store.grid.proposalSecondsLeft).toBe(10);
    await vi.advanceTimersByTimeAsync(2500);
    expect(store.grid.proposalSecondsLeft).toBe(8);
    await vi.advanceTimersByTimeAsync(7000);
    expect(store.grid.proposalSecondsLeft).toBe(1);
    expect(store.grid.proposal).not.toBeNull();
    await vi.advanceTimersByTimeAsync(500);
    expect(store.grid.proposal).toBeNull();
    expect(toasts.error).toHaveBeenCalledWith(MATCH_EXPIRED_NO_RESPONSE, { durationMs: 6000 });
    expect(store.grid.findBlocker).toBeNull();
    expect(cleared).toHaveBeenCalledTimes(1);
  });

  describe('match:expired', () => {
    let cleared = vi.fn<() => void>();
    const listener = () => cleared();
    beforeEach(() => {
      cleared = vi.fn<() => void>();
      window.addEventListener(CLEAR_QUEUE_STATE_EVENT, listener);
    });
    afterEach(() => window.removeEventListener(CLEAR_QUEUE_STATE_EVENT, listener));

    it("keeps the operator queued when the opponent left: 'Opponent left the match. You remain in queue.'", async () => {
      const { store, grid, api, match } = await queuedThenMatched();
      api.on(ESTIMATE, reply(200, { estimateSeconds: 12 }));
      grid.receive('match:expired', { proposalId: match.proposalId, reason: 'OPPONENT_LEFT' });
      expect(store.grid.proposal).toBeNull();
      expect(store.grid.queue).not.toBeNull();
      expect(toasts.show).toHaveBeenCalledWith(MATCH_EXPIRED_TEXTS.OPPONENT_LEFT, { durationMs: 6000 });
      expect(cleared).not.toHaveBeenCalled();
      await vi.waitFor(() => expect(store.grid.queue?.secondsLeft).toBe(12));
    });

    it.each([
      ['OPPONENT_DISMISSED', 'Opponent dismissed the match. Click "Find a Mark" to search again.'],
      ['EXPIRED', 'Match proposal expired. Click "Find a Mark" to search again.'],
    ] as const)(
      '%s: toasts %j for 6 s, clears the match and raises clearQueueState',
      async (reason, text) => {
        const { store, grid, match } = await queuedThenMatched();
        grid.receive('match:expired', { proposalId: match.proposalId, reason });
        expect(store.grid.proposal).toBeNull();
        expect(store.grid.queue).toBeNull();
        expect(toasts.show).toHaveBeenCalledWith(text, { durationMs: 6000 });
        expect(cleared).toHaveBeenCalledTimes(1);
        expect(store.grid.findBlocker).toBeNull();
      },
    );

    it.each<[MatchExpiryReason, string | undefined]>([
      ['UNAVAILABLE', 'The target is not connected to the VPN.'],
      ['DISMISSED', undefined],
    ])('%s: clears the match and raises clearQueueState', async (reason, message) => {
      const { store, grid, match } = await queuedThenMatched();
      grid.receive('match:expired', { proposalId: match.proposalId, reason, message });
      expect(store.grid.proposal).toBeNull();
      expect(cleared).toHaveBeenCalledTimes(1);
      if (message) expect(toasts.error).toHaveBeenCalledWith(message, { durationMs: 6000 });
    });

    it('ignores the expiry of another proposal', async () => {
      const { store, grid, match } = await queuedThenMatched();
      grid.receive('match:expired', { proposalId: matchProposal().proposalId, reason: 'EXPIRED' });
      expect(store.grid.proposal).toEqual(match);
      expect(cleared).not.toHaveBeenCalled();
    });
  });

  it('starts the attack when the engage answer says started', async () => {
    const match = matchProposal();
    const started = gridAttack(me, acid);
    const box = targetBox();
    const { store, api } = await queuedThenMatched(match, {
      [ENGAGE]: reply(200, { started: true, attack: started, box }),
    });
    await store.grid.engage();
    expect(api.callsTo(ENGAGE).map((call) => call.body)).toEqual([{ proposalId: match.proposalId }]);
    expect(store.grid.activeAttack).toEqual({ ...started, box });
    expect(store.grid.proposal).toBeNull();
    expect(store.grid.findBlocker).toBe('attacking');
  });

  it('waits for the opponent when the engage answer says not started', async () => {
    const match = matchProposal();
    const { store } = await queuedThenMatched(match, {
      [ENGAGE]: reply(200, { started: false, attack: null, box: null }),
    });
    await store.grid.engage();
    expect(store.grid.engaged).toBe(true);
    expect(store.grid.engaging).toBe(false);
    expect(store.grid.proposal).toEqual(match);
    expect(store.grid.activeAttack).toBeNull();
  });

  it('shows the server message when the engage fails', async () => {
    const { store } = await queuedThenMatched(matchProposal(), {
      [ENGAGE]: fail(404, 'Match not found or no longer available.'),
    });
    await store.grid.engage();
    expect(toasts.error.mock.calls).toEqual([['Match not found or no longer available.']]);
    expect(store.grid.engaged).toBe(false);
  });

  it('says once why a matched attack could not start (match:expired UNAVAILABLE, then the refused engage)', async () => {
    let answer: (reply: FakeReply) => void = () => undefined;
    const { store, grid, match } = await queuedThenMatched(matchProposal(), {
      [ENGAGE]: () => new Promise<FakeReply>((resolve) => (answer = resolve)),
    });
    const engaging = store.grid.engage();
    await settle();
    const message = 'The target is not connected to the VPN.';
    grid.receive('match:expired', { proposalId: match.proposalId, reason: 'UNAVAILABLE', message });
    answer(fail(409, message));
    await engaging;
    expect(toasts.error.mock.calls.filter(([text]) => text === message)).toHaveLength(1);
    expect(store.grid.proposal).toBeNull();
  });

  it('ends the match on the screen when the engage is refused with 409 before any socket word', async () => {
    const message = 'The target is not connected to the VPN.';
    const { store } = await queuedThenMatched(matchProposal(), { [ENGAGE]: fail(409, message) });
    await store.grid.engage();
    expect(toasts.error).toHaveBeenCalledWith(message);
    expect(store.grid.proposal).toBeNull();
  });

  it("shows 'Failed to engage' when the server says nothing", async () => {
    const { store } = await queuedThenMatched(matchProposal(), { [ENGAGE]: reply(502) });
    await store.grid.engage();
    expect(toasts.error.mock.calls).toEqual([[ENGAGE_FAILED]]);
  });

  it('dismisses with POST /attack/queue/dismiss', async () => {
    const match = matchProposal();
    const { store, api } = await queuedThenMatched(match, { [DISMISS]: reply(204) });
    await store.grid.dismiss();
    expect(api.callsTo(DISMISS).map((call) => call.body)).toEqual([{ proposalId: match.proposalId }]);
    expect(store.grid.proposal).toBeNull();
    expect(toasts.error).not.toHaveBeenCalled();
  });

  it("clears the match even when the dismiss fails: 'Failed to dismiss match properly, but cleared from UI.'", async () => {
    const { store } = await queuedThenMatched(matchProposal(), { [DISMISS]: fail(500, 'Boom') });
    await store.grid.dismiss();
    expect(store.grid.proposal).toBeNull();
    expect(toasts.error.mock.calls).toEqual([[DISMISS_FAILED]]);
  });
});

// ---- the target popup ----------------------------------------------------------------------

describe('the target popup', () => {
  it('loads GET /attack/target-info/{id} and caches it for 5 minutes', async () => {
    fakeClock();
    const target = { id: '00000000-0000-4000-8000-000000000f01', handle: 'lord_nikon' };
    const route = `GET /attack/target-info/${target.id}`;
    const { store, grid, api } = await onGrid({ routes: { [route]: reply(200, targetInfo(target, 75)) } });
    enter(grid, { players: [gridPlayer(target)] });
    store.grid.select(target.id);
    expect(store.grid.selection).toEqual({ playerId: target.id, info: null, loading: true });
    await settle();
    expect(store.grid.selection).toEqual({
      playerId: target.id,
      info: targetInfo(target, 75),
      loading: false,
    });
    store.grid.closeSelection();
    expect(store.grid.selection).toBeNull();

    vi.advanceTimersByTime(4 * 60_000);
    store.grid.select(target.id);
    expect(store.grid.selection?.info?.defense).toBe(75);
    expect(api.callsTo(route)).toHaveLength(1);

    vi.advanceTimersByTime(60_000);
    store.grid.select(target.id);
    await settle();
    expect(api.callsTo(route)).toHaveLength(2);
  });

  it('forgets the cached info when another operator signs in', async () => {
    const target = { id: '00000000-0000-4000-8000-000000000f03', handle: 'the_plague' };
    const route = `GET /attack/target-info/${target.id}`;
    const { store, grid, api, sockets } = await onGrid({
      routes: { [route]: reply(200, targetInfo(target, 40)) },
    });
    enter(grid, { players: [gridPlayer(target)] });
    store.grid.select(target.id);
    await vi.waitFor(() => expect(store.grid.selection?.info?.defense).toBe(40));
    expect(api.callsTo(route)).toHaveLength(1);

    store.auth.setAccessToken(null);
    api.on('GET /users/me', reply(200, otherUser));
    store.auth.setAccessToken('token-2');
    await store.auth.loadUser();
    enter(only(sockets.open(GRID_NAMESPACE)), { players: [gridPlayer(target)] });
    store.grid.select(target.id);
    expect(store.grid.selection?.loading).toBe(true);
    await vi.waitFor(() => expect(store.grid.selection?.info?.defense).toBe(40));
    expect(api.callsTo(route)).toHaveLength(2);
  });

  it('drops a target-info answer that arrives after the operator signed out', async () => {
    let answer: (reply: FakeReply) => void = () => undefined;
    const { store, grid } = await onGrid({
      routes: { [`GET /attack/target-info/${acid.id}`]: () => new Promise<FakeReply>((r) => (answer = r)) },
    });
    enter(grid, { players: [gridPlayer(acid)] });
    store.grid.select(acid.id);
    store.auth.setUser(null);
    answer(reply(200, targetInfo(acid, 50)));
    await settle();
    expect(store.grid.selection).toBeNull();
  });

  it("closes the popup and toasts 'Could not load target details.' when the info cannot be loaded", async () => {
    const target = { id: '00000000-0000-4000-8000-000000000f02', handle: 'cereal_killer' };
    const { store, grid } = await onGrid({
      routes: { [`GET /attack/target-info/${target.id}`]: fail(500, 'Boom') },
    });
    enter(grid, { players: [gridPlayer(target)] });
    store.grid.select(target.id);
    expect(store.grid.selection?.playerId).toBe(target.id);
    await vi.waitFor(() => expect(toasts.error).toHaveBeenCalledWith(TARGET_INFO_FAILED));
    expect(store.grid.selection).toBeNull();
  });

  it('asks nothing about the operator themself', async () => {
    const { store, grid, api } = await onGrid();
    enter(grid, { players: [gridPlayer(me)] });
    store.grid.select(me.id);
    expect(store.grid.selection).toEqual({ playerId: me.id, info: null, loading: false });
    expect(api.calls.filter((call) => call.path.startsWith('/attack/target-info'))).toHaveLength(0);
  });
});

// ---- PVP -----------------------------------------------------------------------------------

describe('PVP', () => {
  it('challenges with pvp:request {targetId}', async () => {
    const { store, grid } = await onGrid();
    enter(grid, { players: [gridPlayer(acid)] });
    store.grid.challenge(acid);
    expect(grid.argsOf('pvp:request')).toEqual([[{ targetId: acid.id }]]);
  });

  it('sends no challenge while the grid is not connected', async () => {
    const { store, grid } = await onGrid();
    store.grid.challenge(acid);
    expect(grid.argsOf('pvp:request')).toEqual([]);
    expect(toasts.error).toHaveBeenCalledWith(GRID_NOT_READY);
  });

  it('keeps an incoming challenge until its expiresAt (30 s), then drops it', async () => {
    fakeClock();
    const { store, grid } = await onGrid();
    enter(grid);
    const prompt = {
      requester: { ...acid, mmr: 1300 },
      expiresAt: new Date(Date.now() + 30_000).toISOString(),
    };
    grid.receive('pvp:request:incoming', prompt);
    expect(store.grid.pvpPrompts).toEqual([prompt]);
    vi.advanceTimersByTime(29_999);
    expect(store.grid.pvpPrompts).toEqual([prompt]);
    vi.advanceTimersByTime(1);
    expect(store.grid.pvpPrompts).toEqual([]);
  });

  it('keeps a challenge 30 s from its arrival even when this computer’s clock is off', async () => {
    fakeClock();
    const { store, grid } = await onGrid();
    enter(grid);
    // The server's expiresAt already looks past here.
    const prompt = {
      requester: { ...acid, mmr: 1300 },
      expiresAt: new Date(Date.now() - 60_000).toISOString(),
    };
    grid.receive('pvp:request:incoming', prompt);
    vi.advanceTimersByTime(29_000);
    expect(store.grid.pvpPrompts).toEqual([prompt]);
    vi.advanceTimersByTime(1_000);
    expect(store.grid.pvpPrompts).toEqual([]);
  });

  it('accepts with pvp:accept and declines with pvp:decline {requesterId}', async () => {
    const { store, grid } = await onGrid();
    enter(grid);
    const expiresAt = new Date(Date.now() + 30_000).toISOString();
    grid.receive('pvp:request:incoming', { requester: { ...acid, mmr: 1300 }, expiresAt });
    grid.receive('pvp:request:incoming', { requester: { ...crash, mmr: 900 }, expiresAt });
    expect(store.grid.pvpPrompts).toHaveLength(2);
    store.grid.answerPvp(acid.id, true);
    store.grid.answerPvp(crash.id, false);
    expect(grid.argsOf('pvp:accept')).toEqual([[{ requesterId: acid.id }]]);
    expect(grid.argsOf('pvp:decline')).toEqual([[{ requesterId: crash.id }]]);
    expect(store.grid.pvpPrompts).toEqual([]);
  });

  it("toasts '{handle} declined your PVP request.' as an error", async () => {
    const { grid } = await onGrid();
    enter(grid);
    grid.receive('pvp:request:declined', { decliner: acid });
    expect(toasts.error).toHaveBeenCalledWith('acid_burn declined your PVP request.');
  });

  it('tells only the challenger to engage; the one who accepted gets the attack without that toast', async () => {
    const { store, grid } = await onGrid();
    enter(grid);
    const started = gridAttack(acid, me);
    grid.receive('pvp:request:accepted', { attack: started });
    expect(toasts.success).not.toHaveBeenCalled();
    expect(store.grid.activeAttack?.id).toBe(started.id);
  });

  it("toasts '{handle} accepted your challenge. Engage!' and makes the attack active", async () => {
    const { store, grid } = await onGrid();
    enter(grid);
    const started = gridAttack(me, acid, { box: targetBox() });
    grid.receive('pvp:request:accepted', { attack: started });
    expect(toasts.success).toHaveBeenCalledWith('acid_burn accepted your challenge. Engage!');
    expect(store.grid.activeAttack).toEqual(started);
  });
});

// ---- blocks --------------------------------------------------------------------------------

describe('blocks', () => {
  it('blocks with chat:block {blockUserId} and unblocks with chat:unblock {unblockUserId}', async () => {
    const { store, grid } = await onGrid();
    enter(grid);
    store.grid.block(acid.id);
    store.grid.unblock(crash.id);
    expect(grid.argsOf('chat:block')).toEqual([[{ blockUserId: acid.id }]]);
    expect(grid.argsOf('chat:unblock')).toEqual([[{ unblockUserId: crash.id }]]);
  });

  it('keeps the blocked list from userBlocked and userUnblocked', async () => {
    const { store, grid } = await onGrid();
    enter(grid, { blockedUsers: [joey] });
    grid.receive('userBlocked', acid);
    grid.receive('userBlocked', acid);
    expect(store.grid.blockedUsers).toEqual([joey, acid]);
    expect(store.grid.isBlocked(acid.id)).toBe(true);
    grid.receive('userUnblocked', { id: joey.id });
    expect(store.grid.blockedUsers).toEqual([acid]);
    expect(store.grid.isBlocked(joey.id)).toBe(false);
  });
});

// ---- notifications -------------------------------------------------------------------------

describe('notifications', () => {
  it("toasts an inbound attack as '{title}: {body}' with the under-attack sound", async () => {
    const { grid, playSound } = await onGrid();
    enter(grid);
    grid.receive(
      'notification',
      notification({ type: 'ATTACK_INBOUND', title: 'Inbound attack', body: 'acid_burn is on your box.' }),
    );
    expect(toasts.error).toHaveBeenCalledWith('Inbound attack: acid_burn is on your box.');
    expect(playSound.mock.calls).toEqual([[SOUNDS.underAttack]]);
  });

  it('plays the chat-request sound for a chat request, toasted away from the Grid (whose prompt shows it)', async () => {
    const { grid, playSound } = await onGrid();
    enter(grid);
    grid.receive(
      'notification',
      notification({ type: 'CHAT_REQUEST', title: 'Chat', body: 'joey wants to talk.' }),
    );
    expect(playSound.mock.calls).toEqual([[SOUNDS.chatRequest]]);
    expect(toasts.info.mock.calls).toEqual([['Chat: joey wants to talk.']]);

    window.history.pushState({}, '', '/attack');
    try {
      grid.receive(
        'notification',
        notification({ type: 'CHAT_REQUEST', title: 'Chat', body: 'acid_burn wants to talk.' }),
      );
    } finally {
      window.history.pushState({}, '', '/');
    }
    expect(playSound.mock.calls).toEqual([[SOUNDS.chatRequest], [SOUNDS.chatRequest]]);
    expect(toasts.info.mock.calls).toEqual([['Chat: joey wants to talk.']]);
  });

  it('shows the body of GENERIC, and of ERROR as an error', async () => {
    const { grid, playSound } = await onGrid();
    enter(grid);
    grid.receive('notification', notification({ type: 'GENERIC', title: 'News', body: 'Season 2 starts.' }));
    grid.receive('notification', notification({ type: 'ERROR', title: 'Oops', body: 'Your box crashed.' }));
    expect(toasts.show).toHaveBeenCalledWith('Season 2 starts.');
    expect(toasts.error).toHaveBeenCalledWith('Your box crashed.');
    expect(playSound).not.toHaveBeenCalled();
  });

  it('toasts the end of an attack unless the Grid’s overlay shows it', async () => {
    const { store, grid } = await onGrid();
    enter(grid);
    const fight = gridAttack(me, acid);
    grid.receive('attackStarted', fight);
    grid.receive('attackEnded', { attackId: fight.id, result: 'OWNED', winnerId: me.id, loserId: acid.id });
    const owned = notification({
      type: 'ATTACK_OWNED',
      title: 'System owned',
      body: 'acid_burn',
      attackId: fight.id,
    });
    // Not on /attack (the store's router is absent: the page is wherever the test left it).
    grid.receive('notification', owned);
    expect(toasts.info).toHaveBeenCalledWith('System owned: acid_burn');
    expect(store.grid.attackResult?.attackId).toBe(fight.id);
  });

  it('toasts a notification once however often it comes, and acknowledges the deliveries together', async () => {
    const { grid } = await onGrid();
    enter(grid);
    const once = notification({ type: 'GENERIC', body: 'Only once.' });
    const other = notification({ type: 'ERROR', body: 'Another.' });
    grid.receive('notification', once);
    grid.receive('notification', once);
    grid.receive('notification', other);
    expect(toasts.show.mock.calls).toEqual([['Only once.']]);
    expect(toasts.error.mock.calls).toEqual([['Another.']]);
    await vi.waitFor(() =>
      expect(grid.argsOf('notifications:ack')).toEqual([[{ ids: [once.id, other.id] }]]),
    );
  });

  it('acknowledges a returning player’s many notifications in events of at most 100', async () => {
    const { grid } = await onGrid();
    enter(grid);
    const many = Array.from({ length: 150 }, () => notification({ type: 'GENERIC' }));
    for (const n of many) grid.receive('notification', n);
    await vi.waitFor(() =>
      expect(grid.argsOf('notifications:ack')).toEqual([
        [{ ids: many.slice(0, 100).map((n) => n.id) }],
        [{ ids: many.slice(100).map((n) => n.id) }],
      ]),
    );
  });
});
