import { GRID_NAMESPACE } from '@exploit-grid/api/contracts';
import { describe, expect, it, vi } from 'vitest';
import { GRID_NOT_READY, SOUNDS, TARGET_INFO_FAILED } from '../strings/grid.ts';
import { fail, fakeApi, reply, testUser, type FakeReply } from '../testing/fakeApi.ts';
import {
  acid,
  crash,
  gridAttack,
  gridPlayer,
  matchProposal,
  me,
  targetBox,
  targetInfo,
} from '../testing/grid.ts';
import {
  closeGridStoresAfterEach,
  enter,
  fakeClock,
  joey,
  onGrid,
  only,
  otherUser,
  reload,
  settle,
} from '../testing/gridStores.ts';
import { toast as toasts } from '../testing/toasts.ts';
import { AUTH_STORAGE_KEY } from './AuthStore.ts';

vi.mock('../notifications/toast.ts', () => import('../testing/toasts.ts'));

closeGridStoresAfterEach();

// ---- presence ----------------------------------------------------------------------------------

describe('presence and the initial state', () => {
  it('fills players, attacks and blocked users from initialState and marks the grid initialized', async () => {
    const { store, grid } = await onGrid();
    const running = gridAttack(acid, crash);
    expect(store.grid.initialized).toBe(false);
    expect(store.matchmaking.findBlocker).toBe('connecting');
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
    expect(store.matchmaking.findBlocker).toBeNull();
  });

  it('is not ready again after the socket disconnects', async () => {
    const { store, grid } = await onGrid();
    enter(grid);
    expect(store.matchmaking.findBlocker).toBeNull();
    grid.receive('disconnect');
    expect(store.grid.initialized).toBe(false);
    expect(store.matchmaking.findBlocker).toBe('connecting');
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
    expect(store.matchmaking.findBlocker).toBe('attacking');
  });

  it("only adds other players' attacks to the list", async () => {
    const { store, grid } = await onGrid();
    enter(grid);
    const theirs = gridAttack(acid, crash);
    grid.receive('attackStarted', theirs);
    expect(store.grid.attacks.get(theirs.id)).toEqual(theirs);
    expect(store.grid.activeAttack).toBeNull();
    expect(store.grid.incomingAttack).toBeNull();
    expect(store.matchmaking.findBlocker).toBeNull();
  });

  it('shows an attack on my box as incoming', async () => {
    const { store, grid } = await onGrid();
    enter(grid);
    const inbound = gridAttack(acid, me);
    grid.receive('attackStarted', inbound);
    expect(store.grid.incomingAttack).toEqual(inbound);
    expect(store.matchmaking.findBlocker).toBe('defending');
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

describe('persisted active attack', () => {
  it('keeps the active attack across a reload for the same operator', async () => {
    const first = await onGrid();
    enter(first.grid);
    const mine = gridAttack(me, acid, { box: targetBox() });
    first.grid.receive('attackStarted', mine);
    const { store } = reload();
    expect(store.auth.user?.id).toBe(me.id);
    expect(store.grid.activeAttack).toEqual(mine);
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
    expect(store.matchmaking.proposal).toBeNull();
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
