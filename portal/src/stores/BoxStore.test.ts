import {
  BOX_MESSAGES,
  VPN_STATUS_NAMESPACE,
  type BoxUpdatePayload,
  type User,
} from '@exploit-grid/api/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CREATE_BOX_FAILED,
  DELETE_BOX_FAILED,
  FETCH_BOX_FAILED,
  START_BOX_FAILED,
  STOP_BOX_FAILED,
  vpnConfigFailed,
} from '../strings/box.ts';
import {
  deferred,
  fail,
  fakeApi,
  readyRuntime,
  reply,
  testBox,
  testUser,
  type FakeReply,
} from '../testing/fakeApi.ts';
import { fakeSockets } from '../testing/fakeSockets.ts';
import { AUTH_STORAGE_KEY } from './AuthStore.ts';
import { formatCountdown, formatDuration, remainingDailySeconds, RUNTIME_POLL_MS } from './BoxStore.ts';
import { RootStore } from './RootStore.ts';

/** A signed-in store with its user loaded; `routes` add to the fake API. */
async function signedIn(routes: Parameters<typeof fakeApi>[0] = {}, user: User = testUser) {
  const api = fakeApi({ 'GET /users/me': reply(200, user), ...routes });
  const sockets = fakeSockets();
  const saveFile = vi.fn<(fileName: string, text: string) => void>();
  const store = new RootStore({ socketFactory: sockets.factory, saveFile });
  store.auth.setAccessToken('token-1');
  await store.auth.loadUser();
  return { store, sockets, api, saveFile };
}

const update = (fields: Partial<BoxUpdatePayload> = {}): BoxUpdatePayload => ({
  id: testBox.id,
  hostname: testBox.hostname,
  status: testBox.status,
  accumulatedUsageSeconds: testBox.accumulatedUsageSeconds,
  lastPoweredAt: testBox.lastPoweredAt,
  vpnIp: testBox.ip,
  vpnClients: testBox.vpnClients,
  dailyRemainingSeconds: testBox.dailyRemainingSeconds,
  statusReason: testBox.statusReason,
  openPorts: testBox.openPorts,
  ...fields,
});

const toasts = vi.hoisted(() => ({ error: vi.fn<(message: string) => void>() }));
vi.mock('../notifications/toast.ts', () => ({
  toast: { error: toasts.error, show: vi.fn(), info: vi.fn(), success: vi.fn() },
}));

const savedBox = () =>
  (JSON.parse(localStorage.getItem(AUTH_STORAGE_KEY) ?? 'null') as { state: { box: unknown } }).state.box;

beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  toasts.error.mockClear();
});

describe('loading the box', () => {
  it('keeps the box of GET /boxes/my, persisted with the session', async () => {
    const { store } = await signedIn({ 'GET /boxes/my': reply(200, testBox) });
    await store.box.load();
    expect(store.box.box).toEqual(testBox);
    expect(store.box.loadStatus).toBe('ready');
    expect(savedBox()).toEqual(testBox);
  });

  it('has no box when the API answers null', async () => {
    const { store } = await signedIn({ 'GET /boxes/my': reply(200, null) });
    store.auth.setBox(testBox);
    await store.box.load();
    expect(store.box.box).toBeNull();
    expect(savedBox()).toBeNull();
  });

  it("says 'Failed to fetch box information.' when the box cannot be loaded, keeping the known box", async () => {
    const { store } = await signedIn({ 'GET /boxes/my': fail(500, 'Database down') });
    store.auth.setBox(testBox);
    await store.box.load();
    expect(store.box.loadStatus).toBe('failed');
    expect(store.box.boxError).toEqual({ message: FETCH_BOX_FAILED, detail: 'Database down' });
    expect(store.box.box).toEqual(testBox);
  });

  it('drops an answer overtaken by a socket update that arrived meanwhile', async () => {
    const answer = deferred<FakeReply>();
    const { store } = await signedIn({ 'GET /boxes/my': () => answer.promise });
    store.auth.setBox(testBox);
    const loading = store.box.load();
    store.box.applyUpdate(update({ status: 'STOPPED' }));
    answer.resolve(reply(200, testBox));
    await loading;
    expect(store.box.box?.status).toBe('STOPPED');
  });
});

describe('socket box updates', () => {
  it("merges a boxUpdate from /vpn-status into the box: status, usage, vpnIp as the box's ip, clients", async () => {
    const { store, sockets } = await signedIn();
    store.auth.setBox(testBox);
    store.realtime.start();
    const [vpn] = sockets.open(VPN_STATUS_NAMESPACE);
    const clients = [
      {
        protocol: 'UDP' as const,
        isConnected: true,
        vpnIp: '10.8.0.6',
        connectedAt: '2025-03-01T12:01:00.000Z',
        realAddress: '203.0.113.5',
      },
    ];
    vpn?.receive(
      'boxUpdate',
      update({
        status: 'STOPPED',
        accumulatedUsageSeconds: 4000,
        lastPoweredAt: '2025-03-02T08:00:00.000Z',
        vpnIp: '10.66.0.9',
        vpnClients: clients,
        statusReason: 'Stopped: not enough credits.',
        openPorts: { '22': 'ssh', '80': 'http' },
      }),
    );
    expect(store.box.box).toEqual({
      ...testBox,
      status: 'STOPPED',
      accumulatedUsageSeconds: 4000,
      lastPoweredAt: '2025-03-02T08:00:00.000Z',
      ip: '10.66.0.9',
      vpnClients: clients,
      statusReason: 'Stopped: not enough credits.',
      openPorts: { '22': 'ssh', '80': 'http' },
    });
    expect(store.box.myClients).toEqual(clients);
    expect(savedBox()).toEqual(store.box.box);
  });

  it('removes the box on an update marked deleted', async () => {
    const { store } = await signedIn();
    store.auth.setBox(testBox);
    store.box.applyUpdate(update({ deleted: true }));
    expect(store.box.box).toBeNull();
    expect(savedBox()).toBeNull();
  });

  it('loads the box for an update about a box it does not know', async () => {
    const { store, api } = await signedIn({ 'GET /boxes/my': reply(200, testBox) });
    store.box.applyUpdate(update({ status: 'PROVISIONING' }));
    await vi.waitFor(() => expect(store.box.box).toEqual(testBox));
    expect(api.callsTo('GET /boxes/my')).toHaveLength(1);
  });

  it("takes the VPN connected flag from the socket's status event", async () => {
    const { store, sockets } = await signedIn();
    store.realtime.start();
    const [vpn] = sockets.open(VPN_STATUS_NAMESPACE);
    expect(store.box.vpnConnected).toBe(false);
    vpn?.receive('status', { status: true });
    expect(store.box.vpnConnected).toBe(true);
    vpn?.receive('status', { status: false });
    expect(store.box.vpnConnected).toBe(false);
  });
});

describe('box actions', () => {
  it('creates a box with the SSH public key, pending until the answer', async () => {
    const created = deferred<FakeReply>();
    const { store, api } = await signedIn({ 'POST /boxes': () => created.promise });
    const creating = store.box.create({ sshPublicKey: 'ssh-ed25519 AAAAC3Nz zero@host' });
    expect(store.box.isPending('create')).toBe(true);
    created.resolve(reply(201, { ...testBox, status: 'PROVISIONING' }));
    expect(await creating).toBe(true);
    expect(store.box.isPending('create')).toBe(false);
    expect(store.box.box?.status).toBe('PROVISIONING');
    expect(api.callsTo('POST /boxes')[0]?.body).toEqual({ sshPublicKey: 'ssh-ed25519 AAAAC3Nz zero@host' });
  });

  it('powers the box on and off by hostname and keeps the answer', async () => {
    const { store, api } = await signedIn({
      [`POST /boxes/${testBox.hostname}/power`]: ({ body }) =>
        reply(200, { ...testBox, status: (body as { on: boolean }).on ? 'RUNNING' : 'STOPPED' }),
    });
    store.auth.setBox(testBox);
    expect(await store.box.stop()).toBe(true);
    expect(store.box.box?.status).toBe('STOPPED');
    expect(await store.box.start()).toBe(true);
    expect(store.box.box?.status).toBe('RUNNING');
    expect(api.callsTo(`POST /boxes/${testBox.hostname}/power`).map((c) => c.body)).toEqual([
      { on: false },
      { on: true },
    ]);
  });

  it('deletes the box by id', async () => {
    const { store, api } = await signedIn({ [`DELETE /boxes/${testBox.id}`]: reply(200, { deleted: true }) });
    store.auth.setBox(testBox);
    expect(await store.box.delete()).toBe(true);
    expect(store.box.box).toBeNull();
    expect(api.callsTo(`DELETE /boxes/${testBox.id}`)).toHaveLength(1);
  });

  it.each([
    ['create', CREATE_BOX_FAILED, 'POST /boxes'],
    ['start', START_BOX_FAILED, `POST /boxes/${testBox.hostname}/power`],
    ['stop', STOP_BOX_FAILED, `POST /boxes/${testBox.hostname}/power`],
    ['delete', DELETE_BOX_FAILED, `DELETE /boxes/${testBox.id}`],
  ] as const)('a failed %s says %j, with the server message as detail', async (action, text, route) => {
    const { store } = await signedIn({ [route]: fail(402, BOX_MESSAGES.cannotPay) });
    if (action !== 'create') store.auth.setBox(testBox);
    expect(await store.box[action]()).toBe(false);
    expect(store.box.boxError).toEqual({ message: text, detail: BOX_MESSAGES.cannotPay });
    expect(toasts.error).toHaveBeenCalledWith(`${text} ${BOX_MESSAGES.cannotPay}`);
    expect(store.box.isPending(action)).toBe(false);
    expect(store.box.revoked).toBe(false);
  });

  it('shows the spec text alone when the server gives no message', async () => {
    const { store } = await signedIn({ 'POST /boxes': reply(500) });
    await store.box.create();
    expect(store.box.boxError).toEqual({ message: CREATE_BOX_FAILED });
  });

  it('does not send an action twice while it is under way', async () => {
    const answer = deferred<FakeReply>();
    const { store, api } = await signedIn({
      [`POST /boxes/${testBox.hostname}/power`]: () => answer.promise,
    });
    store.auth.setBox(testBox);
    const first = store.box.stop();
    expect(await store.box.stop()).toBe(false);
    answer.resolve(reply(200, { ...testBox, status: 'STOPPED' }));
    await first;
    expect(api.callsTo(`POST /boxes/${testBox.hostname}/power`)).toHaveLength(1);
  });
});

describe('VPN access', () => {
  it('saves the config as <protocol>_<handle>.ovpn', async () => {
    const { store, api, saveFile } = await signedIn({
      [`GET /user-vpn/${testUser.id}/TCP`]: reply(200, {
        protocol: 'TCP',
        ovpn_config: 'client\nproto tcp\n',
      }),
    });
    expect(await store.box.downloadConfig('TCP')).toBe(true);
    expect(saveFile).toHaveBeenCalledWith(`tcp_${testUser.handle}.ovpn`, 'client\nproto tcp\n');
    expect(api.callsTo(`GET /user-vpn/${testUser.id}/TCP`)[0]?.authorization).toBe('Bearer token-1');
  });

  it('prefers the server message for a failed download, else names the protocol', async () => {
    const { store, api, saveFile } = await signedIn({
      [`GET /user-vpn/${testUser.id}/UDP`]: fail(503, 'The VPN is not configured on this server.'),
      [`GET /user-vpn/${testUser.id}/TCP`]: reply(500),
    });
    await store.box.downloadConfig('UDP');
    expect(store.box.vpnError).toEqual({ message: 'The VPN is not configured on this server.' });
    await store.box.downloadConfig('TCP');
    expect(store.box.vpnError).toEqual({ message: vpnConfigFailed('TCP') });
    expect(toasts.error.mock.calls).toEqual([
      ['The VPN is not configured on this server.'],
      [vpnConfigFailed('TCP')],
    ]);
    expect(saveFile).not.toHaveBeenCalled();
    expect(api.calls.length).toBeGreaterThan(0);
  });

  it("is revoked once any box or VPN call answers 'VPN access has been revoked'", async () => {
    const { store } = await signedIn({
      'GET /user-vpn/pool-status': reply(200, {
        tcp: { capacity_level: 'available', is_exhausted: false },
        udp: { capacity_level: 'full', is_exhausted: true },
      }),
      'GET /user-vpn/my-clients': fail(403, BOX_MESSAGES.vpnRevoked),
      'GET /boxes/my': reply(200, testBox),
      'GET /boxes/runtime': reply(200, readyRuntime),
    });
    expect(store.box.revoked).toBe(false);
    await store.box.loadPage();
    expect(store.box.revoked).toBe(true);
    expect(store.box.poolStatus?.udp.is_exhausted).toBe(true);
  });

  it('is revoked when a power call answers the revocation', async () => {
    const { store } = await signedIn({
      [`POST /boxes/${testBox.hostname}/power`]: fail(403, BOX_MESSAGES.vpnRevoked),
    });
    store.auth.setBox({ ...testBox, status: 'STOPPED' });
    await store.box.start();
    expect(store.box.revoked).toBe(true);
    expect(store.box.boxError).toEqual({ message: START_BOX_FAILED, detail: BOX_MESSAGES.vpnRevoked });
  });

  it('is not revoked by other refusals', async () => {
    const { store } = await signedIn({ 'GET /user-vpn/my-clients': fail(403, 'Forbidden') });
    await store.box.loadMyClients();
    expect(store.box.revoked).toBe(false);
  });

  it('forgets the revocation, the box and the pools of one account when the session ends', async () => {
    const { store } = await signedIn({ 'GET /user-vpn/my-clients': fail(403, BOX_MESSAGES.vpnRevoked) });
    store.auth.setBox(testBox);
    await store.box.loadMyClients();
    store.auth.setAccessToken(null);
    expect(store.box.revoked).toBe(false);
    expect(store.box.box).toBeNull();
  });
});

describe('daily countdown (BASIC)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts whole seconds down from the last update while running, never below 0', () => {
    const anchor = { seconds: 90, at: 1_000_000 };
    expect(remainingDailySeconds(anchor, 'RUNNING', 1_000_000)).toBe(90);
    expect(remainingDailySeconds(anchor, 'RUNNING', 1_000_999)).toBe(90);
    expect(remainingDailySeconds(anchor, 'RUNNING', 1_001_000)).toBe(89);
    expect(remainingDailySeconds(anchor, 'RUNNING', 1_090_000)).toBe(0);
    expect(remainingDailySeconds(anchor, 'RUNNING', 2_000_000)).toBe(0);
  });

  it('stands still while the box is not running', () => {
    const anchor = { seconds: 90, at: 1_000_000 };
    expect(remainingDailySeconds(anchor, 'STOPPED', 1_060_000)).toBe(90);
    expect(remainingDailySeconds(anchor, 'CRASHED', 1_060_000)).toBe(90);
  });

  it('formats as mm:ss under an hour and h:mm:ss from an hour on', () => {
    expect(formatCountdown(0)).toBe('00:00');
    expect(formatCountdown(65)).toBe('01:05');
    expect(formatCountdown(3599)).toBe('59:59');
    expect(formatCountdown(3600)).toBe('1:00:00');
    expect(formatCountdown(3 * 3600 + 62)).toBe('3:01:02');
  });

  it('formats accumulated usage', () => {
    expect(formatDuration(42)).toBe('42s');
    expect(formatDuration(300)).toBe('5m 00s');
    expect(formatDuration(3723)).toBe('1h 02m 03s');
  });

  it('ticks for BASIC while running, reaches the limit at 0 and then refuses to start', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    const { store, api } = await signedIn();
    store.auth.setBox({ ...testBox, dailyRemainingSeconds: 3 });
    const stopClock = store.box.runClock();
    expect(store.box.dailyLimited).toBe(true);
    expect(store.box.dailyRemainingSeconds).toBe(3);
    vi.advanceTimersByTime(2000);
    expect(store.box.dailyRemainingSeconds).toBe(1);
    expect(store.box.dailyLimitReached).toBe(false);
    vi.advanceTimersByTime(1000);
    expect(store.box.dailyRemainingSeconds).toBe(0);
    expect(store.box.dailyLimitReached).toBe(true);
    // The server stops the box at the limit.
    store.box.applyUpdate(update({ status: 'STOPPED', dailyRemainingSeconds: 0 }));
    expect(await store.box.start()).toBe(false);
    expect(api.callsTo(`POST /boxes/${testBox.hostname}/power`)).toHaveLength(0);
    stopClock();
  });

  it('restarts from each update', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    const { store } = await signedIn();
    store.auth.setBox({ ...testBox, dailyRemainingSeconds: 600 });
    const stopClock = store.box.runClock();
    vi.advanceTimersByTime(10_000);
    expect(store.box.dailyRemainingSeconds).toBe(590);
    store.box.applyUpdate(update({ dailyRemainingSeconds: 500 }));
    expect(store.box.dailyRemainingSeconds).toBe(500);
    vi.advanceTimersByTime(5000);
    expect(store.box.dailyRemainingSeconds).toBe(495);
    stopClock();
  });

  it('has no countdown for other tiers, nor without a daily limit', async () => {
    const { store } = await signedIn({}, { ...testUser, subscription: { tier: 'HACKER' } });
    store.auth.setBox({ ...testBox, dailyRemainingSeconds: 600 });
    expect(store.box.dailyLimited).toBe(false);
    expect(store.box.dailyRemainingSeconds).toBeNull();
    const basic = await signedIn();
    basic.store.auth.setBox(testBox);
    expect(basic.store.box.dailyRemainingSeconds).toBeNull();
  });
});

describe('runtime progress', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const building = (percent: number) => ({
    available: true,
    reason: null,
    image: { state: 'building', percent, step: `step ${percent}` },
  });

  it('polls GET /boxes/runtime every 2 s while the image builds, and stops once it is ready', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const answers = [building(10), building(40), readyRuntime];
    const { store, api } = await signedIn({ 'GET /boxes/runtime': () => reply(200, answers.shift()) });
    await store.box.loadRuntime();
    expect(store.box.runtime?.image.percent).toBe(10);
    const stop = store.box.watchRuntime();
    await vi.advanceTimersByTimeAsync(RUNTIME_POLL_MS - 1);
    expect(api.callsTo('GET /boxes/runtime')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.box.runtime?.image.percent).toBe(40);
    await vi.advanceTimersByTimeAsync(RUNTIME_POLL_MS);
    expect(store.box.runtime?.image.state).toBe('ready');
    await vi.advanceTimersByTimeAsync(RUNTIME_POLL_MS * 5);
    expect(api.callsTo('GET /boxes/runtime')).toHaveLength(3);
    stop();
  });

  it('polls while the box provisions and stops when the watcher is disposed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { store, api } = await signedIn({ 'GET /boxes/runtime': reply(200, readyRuntime) });
    store.auth.setBox({ ...testBox, status: 'PROVISIONING' });
    const stop = store.box.watchRuntime();
    await vi.advanceTimersByTimeAsync(RUNTIME_POLL_MS * 2);
    expect(api.callsTo('GET /boxes/runtime')).toHaveLength(2);
    stop();
    await vi.advanceTimersByTimeAsync(RUNTIME_POLL_MS * 5);
    expect(api.callsTo('GET /boxes/runtime')).toHaveLength(2);
  });

  it('starts polling when a box starts provisioning later', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { store, api } = await signedIn({ 'GET /boxes/runtime': reply(200, readyRuntime) });
    store.auth.setBox({ ...testBox, status: 'STOPPED' });
    const stop = store.box.watchRuntime();
    await vi.advanceTimersByTimeAsync(RUNTIME_POLL_MS * 3);
    expect(api.callsTo('GET /boxes/runtime')).toHaveLength(0);
    store.box.applyUpdate(update({ status: 'PROVISIONING' }));
    await vi.advanceTimersByTimeAsync(RUNTIME_POLL_MS);
    expect(api.callsTo('GET /boxes/runtime')).toHaveLength(1);
    store.box.applyUpdate(update({ status: 'RUNNING' }));
    await vi.advanceTimersByTimeAsync(RUNTIME_POLL_MS * 3);
    expect(api.callsTo('GET /boxes/runtime')).toHaveLength(1);
    stop();
  });

  it('takes boxes as unavailable with the runtime reason, or the box reason first', async () => {
    const { store } = await signedIn({
      'GET /boxes/runtime': reply(200, {
        available: false,
        reason: 'Docker is not installed.',
        image: { state: 'missing', percent: 0, step: null },
      }),
    });
    await store.box.loadRuntime();
    expect(store.box.unavailableReason).toBe('Docker is not installed.');
    store.auth.setBox({ ...testBox, unavailableReason: 'The box host is offline.' });
    expect(store.box.unavailableReason).toBe('The box host is offline.');
  });
});
