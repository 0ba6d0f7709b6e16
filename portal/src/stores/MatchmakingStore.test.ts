import { GRID_NAMESPACE, type MatchExpiryReason } from '@exploit-grid/api/contracts';
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
  VPN_REQUIRED_TO_QUEUE,
} from '../strings/grid.ts';
import { fail, reply, type FakeHandler, type FakeReply } from '../testing/fakeApi.ts';
import { acid, gridAttack, matchProposal, me, targetBox } from '../testing/grid.ts';
import {
  ESTIMATE,
  closeGridStoresAfterEach,
  enter,
  fakeClock,
  onGrid,
  only,
  reload,
  settle,
} from '../testing/gridStores.ts';
import { toast as toasts } from '../testing/toasts.ts';

vi.mock('../notifications/toast.ts', () => import('../testing/toasts.ts'));

const JOIN = 'POST /attack/queue/join';
const ENGAGE = 'POST /attack/queue/engage';
const DISMISS = 'POST /attack/queue/dismiss';

closeGridStoresAfterEach();

// ---- Find a Mark and the queue -------------------------------------------------------------------

describe('Find a Mark', () => {
  it('refuses before the grid is ready, with no request', async () => {
    const { store, grid, vpn, api } = await onGrid({
      routes: { [JOIN]: reply(200, { estimateSeconds: 5, position: 1, queued: true }) },
    });
    vpn.receive('status', { status: true });
    await store.matchmaking.findMark();
    grid.receive('connect');
    await store.matchmaking.findMark();
    expect(toasts.error.mock.calls).toEqual([[GRID_NOT_READY], [GRID_NOT_READY]]);
    expect(api.callsTo(JOIN)).toHaveLength(0);
    expect(store.matchmaking.queue).toBeNull();
  });

  it('refuses without the VPN, with no request', async () => {
    const { store, grid, vpn, api } = await onGrid({
      routes: { [JOIN]: reply(200, { estimateSeconds: 5, position: 1, queued: true }) },
    });
    enter(grid);
    vpn.receive('status', { status: false });
    await store.matchmaking.findMark();
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
    expect(store.matchmaking.queue).toBeNull();

    await store.matchmaking.findMark();
    expect(api.callsTo(JOIN)).toHaveLength(1);
    expect(store.matchmaking.queue).toEqual({ position: 2, secondsLeft: 42 });
    expect(store.matchmaking.findBlocker).toBe('queued');
    expect(toasts.success).toHaveBeenCalledWith(QUEUE_JOINED, { durationMs: 5000 });

    api.on(ESTIMATE, reply(200, { estimateSeconds: 30 }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(store.matchmaking.queue?.secondsLeft).toBe(41);
    await vi.advanceTimersByTimeAsync(8000);
    expect(store.matchmaking.queue?.secondsLeft).toBe(33);
    expect(api.callsTo(ESTIMATE)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    expect(api.callsTo(ESTIMATE)).toHaveLength(2);
    // The poll's 30 replaces the local 32 (the tick of the same instant may already have counted it down).
    const polled = store.matchmaking.queue?.secondsLeft ?? NaN;
    expect(polled).toBeGreaterThanOrEqual(29);
    expect(polled).toBeLessThanOrEqual(30);
    expect(store.matchmaking.queue?.position).toBe(2);
    await vi.advanceTimersByTimeAsync(3000);
    expect(store.matchmaking.queue?.secondsLeft).toBe(polled - 3);

    api.on(ESTIMATE, reply(200, { estimateSeconds: -1 }));
    await vi.advanceTimersByTimeAsync(7000);
    await settle();
    expect(api.callsTo(ESTIMATE)).toHaveLength(3);
    expect(store.matchmaking.queue).toBeNull();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(api.callsTo(ESTIMATE)).toHaveLength(3);
    expect(store.matchmaking.findBlocker).toBeNull();
  });

  it('shows the server message when the join is refused', async () => {
    const { store, grid, vpn } = await onGrid({
      routes: { [JOIN]: fail(400, 'Your box must be running to queue.') },
    });
    enter(grid);
    vpn.receive('status', { status: true });
    await store.matchmaking.findMark();
    expect(toasts.error.mock.calls).toEqual([['Your box must be running to queue.']]);
    expect(store.matchmaking.queue).toBeNull();
    expect(store.matchmaking.joiningQueue).toBe(false);
    expect(store.matchmaking.findBlocker).toBeNull();
  });

  it("shows 'Could not join matchmaking queue. Please try again.' when the server says nothing", async () => {
    const { store, grid, vpn } = await onGrid({ routes: { [JOIN]: reply(500) } });
    enter(grid);
    vpn.receive('status', { status: true });
    await store.matchmaking.findMark();
    expect(toasts.error.mock.calls).toEqual([[QUEUE_JOIN_FAILED]]);
    expect(store.matchmaking.queue).toBeNull();
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
    await store.matchmaking.findMark();
    expect(store.matchmaking.queue).not.toBeNull();
    await store.matchmaking.leaveQueue();
    expect(api.callsTo('POST /attack/queue/leave')).toHaveLength(1);
    expect(store.matchmaking.queue).toBeNull();
  });

  it('leaves the queue on queue:noMatch and shows the server message for 8 s', async () => {
    const { store, grid, vpn } = await onGrid({
      routes: { [JOIN]: reply(200, { estimateSeconds: 42, position: 1, queued: true }) },
    });
    enter(grid);
    vpn.receive('status', { status: true });
    await store.matchmaking.findMark();
    grid.receive('queue:noMatch', { message: 'No opponent within range right now.' });
    expect(store.matchmaking.queue).toBeNull();
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
    await setup.store.matchmaking.findMark();
    setup.grid.receive('match:found', match);
    return { ...setup, match };
  }

  it('stores the proposal, leaves the queue and toasts the opponent for 8 s; the same proposal again is ignored', async () => {
    const { store, grid, match } = await queuedThenMatched(matchProposal({ attacker: acid, defender: me }));
    expect(store.matchmaking.proposal).toEqual(match);
    expect(store.matchmaking.queue).toBeNull();
    expect(store.matchmaking.findBlocker).toBe('matched');
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
    const joining = store.matchmaking.findMark();
    await settle();
    grid.receive('match:found', matchProposal());
    answer(reply(200, { estimateSeconds: 42, position: 1, queued: true }));
    await joining;
    expect(store.matchmaking.proposal).not.toBeNull();
    expect(store.matchmaking.queue).toBeNull();
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
    await store.matchmaking.findMark();
    const leaving = store.matchmaking.leaveQueue();
    await settle();
    grid.receive('match:found', matchProposal());
    answer(reply(204));
    await leaving;
    expect(store.matchmaking.proposal).toBeNull();
    expect(store.matchmaking.queue).toBeNull();
  });

  it('counts down to expiresAt every 500 ms and expires locally at 0, raising clearQueueState', async () => {
    fakeClock();
    const cleared = vi.fn<() => void>();
    window.addEventListener(CLEAR_QUEUE_STATE_EVENT, cleared);
    onTestFinished(() => window.removeEventListener(CLEAR_QUEUE_STATE_EVENT, cleared));
    const { store } = await queuedThenMatched(
      matchProposal({ expiresAt: new Date(Date.now() + 10_000).toISOString() }),
    );
    expect(store.matchmaking.proposalSecondsLeft).toBe(10);
    await vi.advanceTimersByTimeAsync(2500);
    expect(store.matchmaking.proposalSecondsLeft).toBe(8);
    await vi.advanceTimersByTimeAsync(7000);
    expect(store.matchmaking.proposalSecondsLeft).toBe(1);
    expect(store.matchmaking.proposal).not.toBeNull();
    await vi.advanceTimersByTimeAsync(500);
    expect(store.matchmaking.proposal).toBeNull();
    expect(toasts.error).toHaveBeenCalledWith(MATCH_EXPIRED_NO_RESPONSE, { durationMs: 6000 });
    expect(store.matchmaking.findBlocker).toBeNull();
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
      expect(store.matchmaking.proposal).toBeNull();
      expect(store.matchmaking.queue).not.toBeNull();
      expect(toasts.show).toHaveBeenCalledWith(MATCH_EXPIRED_TEXTS.OPPONENT_LEFT, { durationMs: 6000 });
      expect(cleared).not.toHaveBeenCalled();
      await vi.waitFor(() => expect(store.matchmaking.queue?.secondsLeft).toBe(12));
    });

    it.each([
      ['OPPONENT_DISMISSED', 'Opponent dismissed the match. Click "Find a Mark" to search again.'],
      ['EXPIRED', 'Match proposal expired. Click "Find a Mark" to search again.'],
    ] as const)(
      '%s: toasts %j for 6 s, clears the match and raises clearQueueState',
      async (reason, text) => {
        const { store, grid, match } = await queuedThenMatched();
        grid.receive('match:expired', { proposalId: match.proposalId, reason });
        expect(store.matchmaking.proposal).toBeNull();
        expect(store.matchmaking.queue).toBeNull();
        expect(toasts.show).toHaveBeenCalledWith(text, { durationMs: 6000 });
        expect(cleared).toHaveBeenCalledTimes(1);
        expect(store.matchmaking.findBlocker).toBeNull();
      },
    );

    it.each<[MatchExpiryReason, string | undefined]>([
      ['UNAVAILABLE', 'The target is not connected to the VPN.'],
      ['DISMISSED', undefined],
    ])('%s: clears the match and raises clearQueueState', async (reason, message) => {
      const { store, grid, match } = await queuedThenMatched();
      grid.receive('match:expired', { proposalId: match.proposalId, reason, message });
      expect(store.matchmaking.proposal).toBeNull();
      expect(cleared).toHaveBeenCalledTimes(1);
      if (message) expect(toasts.error).toHaveBeenCalledWith(message, { durationMs: 6000 });
    });

    it('ignores the expiry of another proposal', async () => {
      const { store, grid, match } = await queuedThenMatched();
      grid.receive('match:expired', { proposalId: matchProposal().proposalId, reason: 'EXPIRED' });
      expect(store.matchmaking.proposal).toEqual(match);
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
    await store.matchmaking.engage();
    expect(api.callsTo(ENGAGE).map((call) => call.body)).toEqual([{ proposalId: match.proposalId }]);
    expect(store.grid.activeAttack).toEqual({ ...started, box });
    expect(store.matchmaking.proposal).toBeNull();
    expect(store.matchmaking.findBlocker).toBe('attacking');
  });

  it('waits for the opponent when the engage answer says not started', async () => {
    const match = matchProposal();
    const { store } = await queuedThenMatched(match, {
      [ENGAGE]: reply(200, { started: false, attack: null, box: null }),
    });
    await store.matchmaking.engage();
    expect(store.matchmaking.engaged).toBe(true);
    expect(store.matchmaking.engaging).toBe(false);
    expect(store.matchmaking.proposal).toEqual(match);
    expect(store.grid.activeAttack).toBeNull();
  });

  it('shows the server message when the engage fails', async () => {
    const { store } = await queuedThenMatched(matchProposal(), {
      [ENGAGE]: fail(404, 'Match not found or no longer available.'),
    });
    await store.matchmaking.engage();
    expect(toasts.error.mock.calls).toEqual([['Match not found or no longer available.']]);
    expect(store.matchmaking.engaged).toBe(false);
  });

  it('says once why a matched attack could not start (match:expired UNAVAILABLE, then the refused engage)', async () => {
    let answer: (reply: FakeReply) => void = () => undefined;
    const { store, grid, match } = await queuedThenMatched(matchProposal(), {
      [ENGAGE]: () => new Promise<FakeReply>((resolve) => (answer = resolve)),
    });
    const engaging = store.matchmaking.engage();
    await settle();
    const message = 'The target is not connected to the VPN.';
    grid.receive('match:expired', { proposalId: match.proposalId, reason: 'UNAVAILABLE', message });
    answer(fail(409, message));
    await engaging;
    expect(toasts.error.mock.calls.filter(([text]) => text === message)).toHaveLength(1);
    expect(store.matchmaking.proposal).toBeNull();
  });

  it('ends the match on the screen when the engage is refused with 409 before any socket word', async () => {
    const message = 'The target is not connected to the VPN.';
    const { store } = await queuedThenMatched(matchProposal(), { [ENGAGE]: fail(409, message) });
    await store.matchmaking.engage();
    expect(toasts.error).toHaveBeenCalledWith(message);
    expect(store.matchmaking.proposal).toBeNull();
  });

  it("shows 'Failed to engage' when the server says nothing", async () => {
    const { store } = await queuedThenMatched(matchProposal(), { [ENGAGE]: reply(502) });
    await store.matchmaking.engage();
    expect(toasts.error.mock.calls).toEqual([[ENGAGE_FAILED]]);
  });

  it('dismisses with POST /attack/queue/dismiss', async () => {
    const match = matchProposal();
    const { store, api } = await queuedThenMatched(match, { [DISMISS]: reply(204) });
    await store.matchmaking.dismiss();
    expect(api.callsTo(DISMISS).map((call) => call.body)).toEqual([{ proposalId: match.proposalId }]);
    expect(store.matchmaking.proposal).toBeNull();
    expect(toasts.error).not.toHaveBeenCalled();
  });

  it("clears the match even when the dismiss fails: 'Failed to dismiss match properly, but cleared from UI.'", async () => {
    const { store } = await queuedThenMatched(matchProposal(), { [DISMISS]: fail(500, 'Boom') });
    await store.matchmaking.dismiss();
    expect(store.matchmaking.proposal).toBeNull();
    expect(toasts.error.mock.calls).toEqual([[DISMISS_FAILED]]);
  });
});

// ---- persistence ---------------------------------------------------------------------------

describe('persisted match proposal', () => {
  it('keeps the match proposal across a reload for the same operator', async () => {
    const first = await onGrid();
    enter(first.grid);
    const match = matchProposal();
    first.grid.receive('match:found', match);
    const { store } = reload();
    expect(store.matchmaking.proposal).toEqual(match);
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
    expect(kept.store.matchmaking.proposal).toEqual(match);
    expect(toasts.success).toHaveBeenCalledTimes(1); // the first page's, not again

    // Ended while the page was away (the other dismissed or left): not sent again, so gone, quietly.
    const ended = reload();
    expect(ended.store.matchmaking.proposal).toEqual(match);
    ended.store.realtime.start();
    await ended.store.auth.loadUser();
    await vi.waitFor(() => expect(ended.sockets.open(GRID_NAMESPACE)).toHaveLength(1));
    const again = only(ended.sockets.open(GRID_NAMESPACE));
    again.receive('readyForState');
    enter(again);
    expect(ended.store.matchmaking.proposal).toBeNull();
    expect(toasts.error).not.toHaveBeenCalled();
  });
});
