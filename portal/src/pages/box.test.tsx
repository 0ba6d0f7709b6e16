import {
  BOX_MESSAGES,
  SNAPSHOT_MESSAGES,
  VPN_STATUS_NAMESPACE,
  type Box,
  type BoxSnapshot,
  type BoxUpdatePayload,
  type VpnClient,
} from '@exploit-grid/api/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CONFIRM_DELETE_SNAPSHOT,
  CONFIRM_RESTORE,
  NO_SNAPSHOTS,
  RESTORE_DIALOG_TEXT,
  SNAPSHOTS_FULL,
  SNAPSHOT_NAME,
  TAKE_SNAPSHOT,
  TAKE_SNAPSHOT_FAILED,
  deleteSnapshotLabel,
  restoreSnapshotLabel,
  snapshotSlotsUsed,
} from '../strings/snapshots.ts';
import {
  SEE_PLANS,
  SNAPSHOTS_NOT_IN_TIER,
  SNAPSHOTS_TITLE,
  ADD_SSH_KEY,
  BOX_READY,
  BOX_UNAVAILABLE,
  CANCEL,
  CONFIRM_DELETE,
  COPIED,
  CREATE_BOX,
  CRASHED_TEXT,
  DAILY_LIMIT_MESSAGE,
  DELETE_BOX,
  DELETE_DIALOG_TEXT,
  DEPLOY_TITLE,
  FETCH_BOX_FAILED,
  HIDDEN_PASSWORD,
  MY_BOX_TITLE,
  MY_PERSONAL_BOX,
  CONFIRM_RESET,
  RESET_BOX,
  RESET_BOX_FAILED,
  RESET_DIALOG_TEXT,
  RESET_DIALOG_TITLE,
  NO_SERVICES,
  SERVICES_INTRO,
  SERVICES_START,
  SERVICES_TITLE,
  SERVICE_LISTENING,
  SERVICE_NOT_LISTENING,
  servicePort,
  PREPARING,
  RETRY,
  SHOW_PASSWORD,
  SSH_KEY_LABEL,
  START_BOX,
  START_BOX_FAILED,
  STOP_BOX,
  VPN_ACCESS,
  VPN_CLIENT_CONNECTED,
  VPN_CLIENT_DISCONNECTED,
  VPN_REVOKED_TEXT,
  VPN_SAFETY_TEXT,
  VPN_SAFETY_TITLE,
  CONNECT_SYSTEMS_LABEL,
  TUNNEL_DOWN,
  buildingImage,
  copyLabel,
  downloadConfigLabel,
  openVpnCommand,
  poolExhausted,
  CAPACITY_LABEL,
  CAPACITY_OFF,
  VPN_OFF,
  sshCommand,
  tunnelUpFrom,
  tunnelVpnAddress,
  vpnConfigFailed,
  vpnConfigFileName,
} from '../strings/box.ts';
import { RUNTIME_DOWN_POLL_MS } from '../stores/BoxStore.ts';
import { boxCostText } from '../strings/hints.ts';
import { stripeConfig } from '../testing/commerce.ts';
import { deferred, fail, reply, testBox, testUser, type FakeReply } from '../testing/fakeApi.ts';
import { renderSignedIn } from '../test-utils.tsx';

const boxSection = () => screen.getByRole('region', { name: MY_PERSONAL_BOX });
const vpnSection = () => screen.getByRole('region', { name: VPN_ACCESS });
const powerRoute = `POST /boxes/${testBox.hostname}/power`;

/** A `boxUpdate` of the test box with these changes. */
const boxUpdate = (fields: Partial<BoxUpdatePayload>): BoxUpdatePayload => ({
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

/** Renders /box for a signed-in operator and waits for the page heading. */
async function boxPage(routes: Parameters<typeof renderSignedIn>[1] = {}) {
  const rendered = renderSignedIn('/box', routes);
  await screen.findByRole('heading', { level: 1, name: MY_BOX_TITLE });
  return rendered;
}

/** /box with this box loaded. */
async function withBox(box: Box = testBox, routes: Parameters<typeof renderSignedIn>[1] = {}) {
  const rendered = await boxPage({ 'GET /boxes/my': reply(200, box), ...routes });
  await within(boxSection()).findByText(box.hostname, { selector: 'h3' });
  return rendered;
}

beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

afterEach(() => {
  vi.useRealTimers();
});

describe('My Box page', () => {
  it("is titled 'My Box | Exploit Grid' and shows VPN access and the personal box", async () => {
    await boxPage();
    await waitFor(() => expect(document.title).toBe('My Box | Exploit Grid'));
    expect(vpnSection()).toBeTruthy();
    expect(boxSection()).toBeTruthy();
  });

  it('creates a box and then shows it', async () => {
    const { api } = await boxPage({ 'POST /boxes': reply(201, { ...testBox, status: 'PROVISIONING' }) });
    const section = boxSection();
    expect(await within(section).findByText(DEPLOY_TITLE)).toBeTruthy();
    fireEvent.click(within(section).getByRole('button', { name: CREATE_BOX }));
    expect(await within(section).findByText(testBox.hostname, { selector: 'h3' })).toBeTruthy();
    expect(within(section).getByTestId('box-status').textContent).toBe('PROVISIONING');
    expect(within(section).queryByRole('button', { name: CREATE_BOX })).toBeNull();
    expect(api.callsTo('POST /boxes').map((c) => c.body)).toEqual([{}]);
  });

  it('keeps the SSH key field collapsed until asked, checks the key, and sends it', async () => {
    const { api } = await boxPage({ 'POST /boxes': reply(201, testBox) });
    const section = boxSection();
    const toggle = await within(section).findByRole('button', { name: ADD_SSH_KEY });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    // The field loads when first asked for.
    const field = await within(section).findByLabelText(SSH_KEY_LABEL);
    fireEvent.change(field, { target: { value: 'not a key' } });
    fireEvent.click(within(section).getByRole('button', { name: CREATE_BOX }));
    expect(
      await within(section).findByText(/SSH public key must be one line in OpenSSH format/),
    ).toBeTruthy();
    expect(api.callsTo('POST /boxes')).toHaveLength(0);

    fireEvent.change(field, { target: { value: '  ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 zero@host ' } });
    fireEvent.click(within(section).getByRole('button', { name: CREATE_BOX }));
    await within(section).findByText(testBox.hostname, { selector: 'h3' });
    expect(api.callsTo('POST /boxes').map((c) => c.body)).toEqual([
      { sshPublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 zero@host' },
    ]);
  });

  it('shows a failed create inline with the server message', async () => {
    await boxPage({ 'POST /boxes': fail(402, BOX_MESSAGES.cannotPay) });
    fireEvent.click(await within(boxSection()).findByRole('button', { name: CREATE_BOX }));
    const alert = await within(boxSection()).findByTestId('box-error');
    expect(alert.textContent).toContain('Failed to create box.');
    expect(alert.textContent).toContain(BOX_MESSAGES.cannotPay);
  });

  it('resets the box only after confirming what is lost, and shows it powered off with its new services', async () => {
    const fresh: Box = {
      ...testBox,
      status: 'STOPPED',
      statusReason: BOX_MESSAGES.reset,
      services: [{ name: 'Notes', port: 8083, keeps: 'Finds the team’s public notes.' }],
    };
    const route = `POST /boxes/${testBox.hostname}/reset`;
    const { api } = await withBox(testBox, { [route]: reply(200, fresh) });
    const section = boxSection();
    fireEvent.click(within(section).getByRole('button', { name: RESET_BOX }));
    let dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(RESET_DIALOG_TEXT)).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: CANCEL }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.callsTo(route)).toHaveLength(0);

    fireEvent.click(within(section).getByRole('button', { name: RESET_BOX }));
    dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: CONFIRM_RESET }));
    await waitFor(() => expect(api.callsTo(route)).toHaveLength(1));
    expect(await within(section).findByText(BOX_MESSAGES.reset)).toBeTruthy();
    expect(within(section).getByText('Notes')).toBeTruthy();
    expect(within(section).queryByText('NetDiag')).toBeNull();
    expect(api.callsTo(`DELETE /boxes/${testBox.id}`)).toHaveLength(0);
  });

  it("shows 'Failed to reset box.' inline with the server's reason", async () => {
    await withBox(testBox, {
      [`POST /boxes/${testBox.hostname}/reset`]: fail(409, 'Your box is under attack.'),
    });
    fireEvent.click(within(boxSection()).getByRole('button', { name: RESET_BOX }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(RESET_DIALOG_TITLE)).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: CONFIRM_RESET }));
    // Closing, it still says what it was for.
    expect(within(dialog).getByText(RESET_DIALOG_TITLE)).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const alert = await within(boxSection()).findByTestId('box-error');
    expect(alert.textContent).toContain(RESET_BOX_FAILED);
    expect(alert.textContent).toContain('Your box is under attack.');
  });

  it('deletes the box only after confirming that deletion is permanent', async () => {
    const { api } = await withBox(testBox, {
      [`DELETE /boxes/${testBox.id}`]: reply(200, { deleted: true }),
    });
    const section = boxSection();
    fireEvent.click(within(section).getByRole('button', { name: DELETE_BOX }));
    let dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(DELETE_DIALOG_TEXT)).toBeTruthy();
    expect(DELETE_DIALOG_TEXT).toMatch(/permanent/);
    fireEvent.click(within(dialog).getByRole('button', { name: CANCEL }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.callsTo(`DELETE /boxes/${testBox.id}`)).toHaveLength(0);
    expect(within(section).getByText(testBox.hostname, { selector: 'h3' })).toBeTruthy();

    fireEvent.click(within(section).getByRole('button', { name: DELETE_BOX }));
    dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: CONFIRM_DELETE }));
    expect(await within(section).findByRole('button', { name: CREATE_BOX })).toBeTruthy();
    expect(api.callsTo(`DELETE /boxes/${testBox.id}`)).toHaveLength(1);
  });

  it("shows 'Copied' for 2 s after copying the hostname", async () => {
    const writeText = vi.fn<(text: string) => Promise<void>>().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    try {
      await withBox();
      const hostname = within(boxSection()).getByRole('group', { name: 'Hostname' });
      expect(within(hostname).queryByText(COPIED)).toBeNull();
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      await act(async () => {
        fireEvent.click(within(hostname).getByRole('button', { name: copyLabel('hostname') }));
      });
      expect(writeText).toHaveBeenCalledWith(testBox.hostname);
      expect(within(hostname).getByText(COPIED)).toBeTruthy();
      act(() => vi.advanceTimersByTime(1999));
      expect(within(hostname).getByText(COPIED)).toBeTruthy();
      act(() => vi.advanceTimersByTime(1));
      expect(within(hostname).queryByText(COPIED)).toBeNull();
    } finally {
      Reflect.deleteProperty(navigator, 'clipboard');
    }
  });

  it('copies the IP and keeps the root password hidden until revealed', async () => {
    const writeText = vi.fn<(text: string) => Promise<void>>().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    try {
      await withBox();
      const section = boxSection();
      const ip = within(section).getByRole('group', { name: 'IP address' });
      fireEvent.click(within(ip).getByRole('button', { name: copyLabel('IP address') }));
      expect(await within(ip).findByText(COPIED)).toBeTruthy();
      expect(writeText).toHaveBeenCalledWith(testBox.ip);

      const password = within(section).getByTestId('root-password');
      expect(password.textContent).toBe(HIDDEN_PASSWORD);
      expect(section.textContent).not.toContain(testBox.ssh_password);
      fireEvent.click(within(section).getByRole('button', { name: SHOW_PASSWORD }));
      expect(within(section).getByTestId('root-password').textContent).toBe(testBox.ssh_password);
    } finally {
      Reflect.deleteProperty(navigator, 'clipboard');
    }
  });

  it("shows 'Preparing...' while running until a VPN client is connected, then the ssh command", async () => {
    const { sockets } = await withBox();
    const section = boxSection();
    expect(within(section).getByText(PREPARING)).toBeTruthy();
    expect(within(section).queryByText(BOX_READY)).toBeNull();
    const [vpn] = sockets.open(VPN_STATUS_NAMESPACE);
    act(() => vpn?.receive('status', { status: true }));
    expect(within(section).queryByText(PREPARING)).toBeNull();
    expect(within(section).getByText(BOX_READY)).toBeTruthy();
    expect(within(section).getByText(sshCommand(testBox.ip))).toBeTruthy();
    expect(within(vpnSection()).getByRole('status', { name: VPN_CLIENT_CONNECTED })).toBeTruthy();
    act(() => vpn?.receive('status', { status: false }));
    expect(within(section).getByText(PREPARING)).toBeTruthy();
    expect(within(vpnSection()).getByRole('status', { name: VPN_CLIENT_DISCONNECTED })).toBeTruthy();
  });

  it('lists the services to keep up, whether each listens now, and how to start; never a weakness', async () => {
    const { sockets } = await withBox();
    const services = within(boxSection()).getByRole('region', { name: SERVICES_TITLE });
    expect(within(services).getByText(SERVICES_INTRO)).toBeTruthy();
    expect(within(services).getByText(SERVICES_START)).toBeTruthy();
    const [service] = within(services).getAllByRole('listitem');
    expect(within(service!).getByText('NetDiag')).toBeTruthy();
    expect(within(service!).getByText(servicePort(8080))).toBeTruthy();
    expect(within(service!).getByText(testBox.services[0]!.keeps)).toBeTruthy();
    // Port 8080 is not among the box's open ports yet; it is once the box reports it.
    expect(within(service!).getByText(SERVICE_NOT_LISTENING)).toBeTruthy();
    const [vpn] = sockets.open(VPN_STATUS_NAMESPACE);
    act(() => vpn?.receive('boxUpdate', boxUpdate({ openPorts: { '22': 'ssh', '8080': 'python3' } })));
    expect(within(service!).getByText(SERVICE_LISTENING)).toBeTruthy();
    // A stopped box listens on nothing: no claim either way.
    act(() => vpn?.receive('boxUpdate', boxUpdate({ status: 'STOPPED', openPorts: {} })));
    expect(within(service!).queryByText(SERVICE_NOT_LISTENING)).toBeNull();
    expect(within(service!).queryByText(SERVICE_LISTENING)).toBeNull();
  });

  it('says so when a box has no services (made before loadouts)', async () => {
    await withBox({ ...testBox, services: [] });
    const services = within(boxSection()).getByRole('region', { name: SERVICES_TITLE });
    expect(within(services).getByText(NO_SERVICES)).toBeTruthy();
    expect(within(services).queryByRole('listitem')).toBeNull();
  });

  it('shows the status green while RUNNING and red otherwise, following socket updates', async () => {
    const { sockets } = await withBox();
    const chip = () => within(boxSection()).getByTestId('box-status');
    expect(chip().textContent).toBe('RUNNING');
    expect(chip().getAttribute('data-healthy')).toBe('true');
    const [vpn] = sockets.open(VPN_STATUS_NAMESPACE);
    act(() =>
      vpn?.receive(
        'boxUpdate',
        boxUpdate({
          status: 'STOPPED',
          accumulatedUsageSeconds: 4000,
          statusReason: 'Stopped by its owner.',
        }),
      ),
    );
    expect(chip().textContent).toBe('STOPPED');
    expect(chip().getAttribute('data-healthy')).toBe('false');
    expect(within(boxSection()).getByText('1h 06m 40s')).toBeTruthy();
    expect(within(boxSection()).getByText('Stopped by its owner.')).toBeTruthy();
  });

  it('starts and stops the box, disabling the buttons while the call is under way', async () => {
    const answer = deferred<FakeReply>();
    const { api } = await withBox(testBox, { [powerRoute]: () => answer.promise });
    const section = boxSection();
    const start = within(section).getByRole('button', { name: START_BOX });
    const stop = within(section).getByRole('button', { name: STOP_BOX });
    expect(start.hasAttribute('disabled')).toBe(true);
    expect(stop.hasAttribute('disabled')).toBe(false);
    fireEvent.click(stop);
    await waitFor(() => expect(api.callsTo(powerRoute)).toHaveLength(1));
    expect(api.callsTo(powerRoute)[0]?.body).toEqual({ on: false });
    await waitFor(() =>
      expect(
        within(section)
          .getByRole('button', { name: /Stopping/ })
          .hasAttribute('disabled'),
      ).toBe(true),
    );
    answer.resolve(reply(200, { ...testBox, status: 'STOPPED' }));
    await waitFor(() => expect(within(section).getByTestId('box-status').textContent).toBe('STOPPED'));
    expect(within(section).getByRole('button', { name: START_BOX }).hasAttribute('disabled')).toBe(false);
  });

  it("shows 'Failed to start box.' inline when starting fails", async () => {
    await withBox({ ...testBox, status: 'STOPPED' }, { [powerRoute]: reply(500) });
    fireEvent.click(within(boxSection()).getByRole('button', { name: START_BOX }));
    const alert = await within(boxSection()).findByTestId('box-error');
    expect(alert.textContent).toBe(START_BOX_FAILED);
  });

  it("shows 'Failed to fetch box information.' inline with Retry when the box cannot be loaded", async () => {
    const { api } = await boxPage({ 'GET /boxes/my': fail(500, 'Boom') });
    const alert = await within(boxSection()).findByTestId('box-error');
    expect(alert.textContent).toContain(FETCH_BOX_FAILED);
    api.on('GET /boxes/my', reply(200, testBox));
    fireEvent.click(within(alert).getByRole('button', { name: RETRY }));
    expect(await within(boxSection()).findByText(testBox.hostname, { selector: 'h3' })).toBeTruthy();
    expect(within(boxSection()).queryByTestId('box-error')).toBeNull();
  });

  it('shows a crashed box as such and lets it start again', async () => {
    await withBox({ ...testBox, status: 'CRASHED' });
    const section = boxSection();
    expect(within(section).getByText(CRASHED_TEXT)).toBeTruthy();
    expect(within(section).getByTestId('box-status').getAttribute('data-healthy')).toBe('false');
    expect(within(section).getByRole('button', { name: START_BOX }).hasAttribute('disabled')).toBe(false);
  });

  it('shows the base image build progress while the box provisions', async () => {
    await withBox(
      { ...testBox, status: 'PROVISIONING' },
      {
        'GET /boxes/runtime': reply(200, {
          available: true,
          reason: null,
          image: { state: 'building', percent: 42, step: 'Installing openssh-server' },
        }),
      },
    );
    const section = boxSection();
    expect(await within(section).findByText(buildingImage(42))).toBeTruthy();
    expect(within(section).getByText('Installing openssh-server')).toBeTruthy();
    expect(within(section).getByRole('progressbar').getAttribute('aria-valuenow')).toBe('42');
  });

  it('says plainly why boxes cannot run here and disables Create', async () => {
    await boxPage({
      'GET /boxes/runtime': reply(200, {
        available: false,
        reason: 'Docker is not installed on this host.',
        image: { state: 'missing', percent: 0, step: null },
      }),
    });
    const section = boxSection();
    const notice = await within(section).findByTestId('box-unavailable');
    expect(notice.textContent).toContain(BOX_UNAVAILABLE);
    expect(notice.textContent).toContain('Docker is not installed on this host.');
    expect(within(section).getByRole('button', { name: CREATE_BOX }).hasAttribute('disabled')).toBe(true);
  });

  it('follows a runtime that is still starting: Create turns on when it is up, without a reload', async () => {
    // Only the timeouts (the poll): React's scheduler runs as usual.
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout'] });
    let available = false;
    await boxPage({
      'GET /boxes/runtime': () =>
        reply(200, {
          available,
          reason: available ? null : 'The box runtime is starting.',
          image: { state: 'ready', percent: 100, step: null },
        }),
    });
    const section = boxSection();
    await within(section).findByTestId('box-unavailable');
    expect(within(section).getByRole('button', { name: CREATE_BOX }).hasAttribute('disabled')).toBe(true);
    available = true;
    await act(() => vi.advanceTimersByTimeAsync(RUNTIME_DOWN_POLL_MS));
    await waitFor(() =>
      expect(within(section).getByRole('button', { name: CREATE_BOX }).hasAttribute('disabled')).toBe(false),
    );
    expect(within(section).queryByTestId('box-unavailable')).toBeNull();
  });

  it('disables Start for a box whose unavailableReason is set, and shows the reason', async () => {
    await withBox({ ...testBox, status: 'STOPPED', unavailableReason: 'The box host is offline.' });
    const section = boxSection();
    expect(within(section).getByTestId('box-unavailable').textContent).toContain('The box host is offline.');
    expect(within(section).getByRole('button', { name: START_BOX }).hasAttribute('disabled')).toBe(true);
  });
});

describe('VPN access', () => {
  it('downloads the UDP config as udp_<handle>.ovpn', async () => {
    const blobs: Blob[] = [];
    const createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return 'blob:portal.test/1';
    });
    const revokeObjectURL = vi.fn();
    Object.assign(URL, { createObjectURL, revokeObjectURL });
    const downloads: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      downloads.push(`${this.download} ${this.href}`);
    });
    try {
      const { api } = await boxPage({
        [`GET /user-vpn/${testUser.id}/UDP`]: reply(200, {
          protocol: 'UDP',
          ovpn_config: 'client\nproto udp\n',
        }),
      });
      fireEvent.click(within(vpnSection()).getByRole('button', { name: downloadConfigLabel('UDP') }));
      await waitFor(() => expect(downloads).toEqual([`udp_${testUser.handle}.ovpn blob:portal.test/1`]));
      expect(await blobs[0]?.text()).toBe('client\nproto udp\n');
      expect(api.callsTo(`GET /user-vpn/${testUser.id}/UDP`)).toHaveLength(1);
      expect(document.querySelector('a[download]')).toBeNull();
      await waitFor(() => expect(revokeObjectURL).toHaveBeenCalledWith('blob:portal.test/1'));
    } finally {
      Reflect.deleteProperty(URL, 'createObjectURL');
      Reflect.deleteProperty(URL, 'revokeObjectURL');
    }
  });

  it('shows the server message of a failed download inline, else the protocol text', async () => {
    const { api } = await boxPage({ [`GET /user-vpn/${testUser.id}/TCP`]: reply(500) });
    fireEvent.click(within(vpnSection()).getByRole('button', { name: downloadConfigLabel('TCP') }));
    expect(await within(vpnSection()).findByText(vpnConfigFailed('TCP'))).toBeTruthy();
    api.on(`GET /user-vpn/${testUser.id}/TCP`, fail(503, 'The VPN pool is being rebuilt.'));
    fireEvent.click(within(vpnSection()).getByRole('button', { name: downloadConfigLabel('TCP') }));
    expect(await within(vpnSection()).findByText('The VPN pool is being rebuilt.')).toBeTruthy();
  });

  it('says the VPN is off, not full, when boxes cannot run here, and sends nobody to the other pool', async () => {
    await boxPage({
      'GET /boxes/runtime': reply(200, {
        available: false,
        reason: 'Boxes are turned off on this platform.',
        image: { state: 'missing', percent: 0, step: null },
      }),
      // What the API answers without a VPN server: no room anywhere.
      'GET /user-vpn/pool-status': reply(200, {
        udp: { capacity_level: 'full', is_exhausted: true },
        tcp: { capacity_level: 'full', is_exhausted: true },
      }),
    });
    const section = vpnSection();
    await waitFor(() =>
      expect(within(section).getByTestId('capacity-UDP').textContent).toBe(
        `${CAPACITY_LABEL}: ${CAPACITY_OFF}`,
      ),
    );
    expect(within(section).getByTestId('capacity-TCP').textContent).toBe(
      `${CAPACITY_LABEL}: ${CAPACITY_OFF}`,
    );
    expect(within(section).getAllByText(VPN_OFF)).toHaveLength(2);
    expect(within(section).queryByText(poolExhausted('UDP'))).toBeNull();
    expect(within(section).queryByText(poolExhausted('TCP'))).toBeNull();
    for (const protocol of ['UDP', 'TCP'] as const)
      expect(
        within(section)
          .getByRole('button', { name: downloadConfigLabel(protocol) })
          .hasAttribute('disabled'),
      ).toBe(true);
  });

  it('shows the capacity of each pool and disables the download of an exhausted one, saying why', async () => {
    await boxPage({
      'GET /user-vpn/pool-status': reply(200, {
        udp: { capacity_level: 'full', is_exhausted: true },
        tcp: { capacity_level: 'limited', is_exhausted: false },
      }),
    });
    const section = vpnSection();
    await waitFor(() => expect(within(section).getByTestId('capacity-UDP').textContent).toContain('Full'));
    expect(within(section).getByTestId('capacity-TCP').textContent).toContain('Limited');
    expect(
      within(section)
        .getByRole('button', { name: downloadConfigLabel('UDP') })
        .hasAttribute('disabled'),
    ).toBe(true);
    expect(within(section).getByText(poolExhausted('UDP'))).toBeTruthy();
    expect(
      within(section)
        .getByRole('button', { name: downloadConfigLabel('TCP') })
        .hasAttribute('disabled'),
    ).toBe(false);
  });

  it('tells players that boxes cannot connect to them, except a target during their attack, and to use a dedicated VM', async () => {
    await boxPage();
    const notice = within(vpnSection()).getByTestId('vpn-safety');
    expect(within(notice).getByText(VPN_SAFETY_TITLE)).toBeTruthy();
    expect(notice.textContent).toContain(VPN_SAFETY_TEXT);
  });

  it('replaces the downloads by a permanent-revocation notice once the API says access is revoked', async () => {
    await boxPage({ 'GET /user-vpn/my-clients': fail(403, BOX_MESSAGES.vpnRevoked) });
    const section = vpnSection();
    expect(await within(section).findByText(VPN_REVOKED_TEXT)).toBeTruthy();
    expect(within(section).queryByRole('button', { name: downloadConfigLabel('UDP') })).toBeNull();
    expect(within(section).queryByRole('button', { name: downloadConfigLabel('TCP') })).toBeNull();
  });
});

describe('BASIC daily countdown', () => {
  it('ticks every second while running; at 0 it shows the daily limit and Start stays disabled', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const { sockets } = await withBox({ ...testBox, dailyRemainingSeconds: 62 });
    const countdown = () => within(boxSection()).getByTestId('daily-countdown').textContent;
    expect(countdown()).toBe('01:02');
    act(() => vi.advanceTimersByTime(1000));
    expect(countdown()).toBe('01:01');
    act(() => vi.advanceTimersByTime(61_000));
    expect(countdown()).toBe('00:00');
    expect(within(boxSection()).getByText(DAILY_LIMIT_MESSAGE)).toBeTruthy();
    // The server stops the box at the limit; it cannot be started again today.
    const [vpn] = sockets.open(VPN_STATUS_NAMESPACE);
    act(() => vpn?.receive('boxUpdate', boxUpdate({ status: 'STOPPED', dailyRemainingSeconds: 0 })));
    expect(countdown()).toBe('00:00');
    expect(within(boxSection()).getByRole('button', { name: START_BOX }).hasAttribute('disabled')).toBe(true);
  });

  it('stands still while the box is stopped', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    await withBox({ ...testBox, status: 'STOPPED', dailyRemainingSeconds: 3600 });
    const countdown = () => within(boxSection()).getByTestId('daily-countdown').textContent;
    expect(countdown()).toBe('1:00:00');
    act(() => vi.advanceTimersByTime(5000));
    expect(countdown()).toBe('1:00:00');
    expect(within(boxSection()).getByRole('button', { name: START_BOX }).hasAttribute('disabled')).toBe(
      false,
    );
  });

  it('is not shown for unlimited tiers', async () => {
    await withBox(
      { ...testBox, dailyRemainingSeconds: 600 },
      {
        'GET /users/me': reply(200, { ...testUser, subscription: { tier: 'ELITE' } }),
      },
    );
    expect(within(boxSection()).queryByTestId('daily-countdown')).toBeNull();
  });
});

describe('VPN access: connecting and the tunnel', () => {
  const client = (fields: Partial<VpnClient> = {}): VpnClient => ({
    protocol: 'UDP',
    isConnected: true,
    vpnIp: '10.8.0.6',
    connectedAt: '2025-03-01T12:01:00.000Z',
    realAddress: '203.0.113.5',
    ...fields,
  });
  const tunnelLine = () => within(vpnSection()).getByTestId('tunnel-line').textContent;

  it('shows how to connect on Linux, macOS and Windows, one tab each, Linux first here', async () => {
    await withBox();
    const tabs = within(vpnSection()).getByRole('tablist', { name: CONNECT_SYSTEMS_LABEL });
    expect(
      within(tabs)
        .getAllByRole('tab')
        .map((tab) => tab.textContent),
    ).toEqual(['Linux', 'macOS', 'Windows']);
    const selected = () => within(tabs).getByRole('tab', { selected: true });
    expect(selected().textContent).toBe('Linux');
    const panel = () => within(vpnSection()).getByRole('tabpanel');
    expect(panel().getAttribute('aria-labelledby')).toBe(selected().id);
    expect(within(panel()).getByText(openVpnCommand(vpnConfigFileName('UDP', testUser.handle)))).toBeTruthy();
    expect(within(panel()).getByText(sshCommand(testBox.ip))).toBeTruthy();

    fireEvent.click(within(tabs).getByRole('tab', { name: 'macOS' }));
    expect(selected().textContent).toBe('macOS');
    expect(within(panel()).getByRole('link', { name: 'Tunnelblick' }).getAttribute('rel')).toContain(
      'noopener',
    );
    expect(within(panel()).getByRole('link', { name: 'OpenVPN Connect' })).toBeTruthy();
    expect(panel().textContent).toContain(vpnConfigFileName('UDP', testUser.handle));
    expect(within(panel()).getByText(sshCommand(testBox.ip))).toBeTruthy();

    fireEvent.click(within(tabs).getByRole('tab', { name: 'Windows' }));
    expect(within(panel()).getByRole('link', { name: 'OpenVPN Connect' })).toBeTruthy();
    expect(within(panel()).getByRole('link', { name: 'OpenVPN GUI' })).toBeTruthy();
    expect(panel().textContent).toContain('PowerShell');
    // One panel at a time.
    expect(within(vpnSection()).getAllByRole('tabpanel')).toHaveLength(1);
  });

  it('says live whether the tunnel is up, from where and at which VPN address', async () => {
    const { api, sockets } = await withBox();
    await waitFor(() => expect(tunnelLine()).toBe(TUNNEL_DOWN));
    expect(within(vpnSection()).getByRole('status', { name: VPN_CLIENT_DISCONNECTED })).toBeTruthy();

    // The VPN server admitted the player's client: the socket says so, their clients say from where.
    api.on(
      'GET /user-vpn/my-clients',
      reply(200, [
        client(),
        client({ protocol: 'TCP', isConnected: false, vpnIp: null, realAddress: null, connectedAt: null }),
      ]),
    );
    const [vpn] = sockets.open(VPN_STATUS_NAMESPACE);
    act(() => vpn?.receive('status', { status: true }));
    await waitFor(() => expect(tunnelLine()).toBe(tunnelUpFrom('203.0.113.5')));
    const status = within(vpnSection()).getByRole('status', { name: VPN_CLIENT_CONNECTED });
    expect(status.textContent).toContain(tunnelVpnAddress('UDP', '10.8.0.6'));

    // A box update carries the clients too (reconnected over TCP from elsewhere).
    act(() =>
      vpn?.receive(
        'boxUpdate',
        boxUpdate({
          vpnClients: [client({ protocol: 'TCP', vpnIp: '10.9.0.3', realAddress: '198.51.100.8' })],
        }),
      ),
    );
    expect(tunnelLine()).toBe(tunnelUpFrom('198.51.100.8'));
    expect(within(vpnSection()).getByTestId('tunnel-status').textContent).toContain(
      tunnelVpnAddress('TCP', '10.9.0.3'),
    );

    api.on('GET /user-vpn/my-clients', reply(200, []));
    act(() => vpn?.receive('status', { status: false }));
    expect(tunnelLine()).toBe(TUNNEL_DOWN);
  });

  it('says what the box costs, with the numbers the server configures', async () => {
    await withBox(testBox, {
      'GET /subscription/config': reply(200, {
        ...stripeConfig,
        basicDailyLimitMinutes: 30,
        boxMinimumChargeMinutes: 10,
      }),
    });
    const expected = boxCostText({ hourCost: 40, tier: 'BASIC', minimumMinutes: 10, dailyLimitMinutes: 30 });
    await waitFor(() => expect(within(boxSection()).getByTestId('box-cost').textContent).toContain(expected));
  });
});

describe('My Box snapshots', () => {
  const hacker = { ...testUser, subscription: { tier: 'HACKER' as const } };
  const listRoute = `GET /boxes/${testBox.hostname}/snapshots`;
  const takeRoute = `POST /boxes/${testBox.hostname}/snapshots`;
  const saved: BoxSnapshot = {
    id: 'c0000000-0000-4000-8000-000000000001',
    name: 'hardened',
    createdAt: '2026-11-20T10:00:00.000Z',
    sizeBytes: 12_345_678,
  };
  const snapshotsGroup = () => within(boxSection()).getByRole('group', { name: SNAPSHOTS_TITLE });

  it('says which plans have snapshots on BASIC, and asks nothing of the API', async () => {
    const { api } = await withBox(testBox);
    const group = snapshotsGroup();
    expect(within(group).getByText(SNAPSHOTS_NOT_IN_TIER)).toBeTruthy();
    expect(within(group).getByRole('link', { name: SEE_PLANS }).getAttribute('href')).toBe('/plans');
    expect(within(group).queryByRole('button', { name: TAKE_SNAPSHOT })).toBeNull();
    expect(api.callsTo(listRoute)).toHaveLength(0);
  });

  it('takes a snapshot under a trimmed name, then says the slots are full', async () => {
    const taken: BoxSnapshot = { ...saved, id: 'c0000000-0000-4000-8000-000000000002', name: 'after fixes' };
    const { api } = await withBox(testBox, {
      'GET /users/me': reply(200, hacker),
      [listRoute]: reply(200, { snapshots: [], slots: 1 }),
      [takeRoute]: reply(201, taken),
    });
    const group = snapshotsGroup();
    expect(await within(group).findByText(NO_SNAPSHOTS)).toBeTruthy();
    expect(within(group).getByTestId('snapshot-slots').textContent).toBe(snapshotSlotsUsed(0, 1));
    const take = within(group).getByRole('button', { name: TAKE_SNAPSHOT });
    expect(take.hasAttribute('disabled')).toBe(true);
    fireEvent.change(within(group).getByLabelText(SNAPSHOT_NAME), { target: { value: '  after fixes ' } });
    fireEvent.click(take);
    await waitFor(() => expect(api.callsTo(takeRoute)).toHaveLength(1));
    expect(api.callsTo(takeRoute)[0]!.body).toEqual({ name: 'after fixes' });
    expect(await within(group).findByText('after fixes')).toBeTruthy();
    expect(within(group).getByText(SNAPSHOTS_FULL)).toBeTruthy();
    expect(within(group).getByTestId('snapshot-slots').textContent).toBe(snapshotSlotsUsed(1, 1));
  });

  it('restores only after confirming what is lost, and shows the box powered off', async () => {
    const restored: Box = { ...testBox, status: 'STOPPED', statusReason: SNAPSHOT_MESSAGES.restored };
    const route = `POST /boxes/${testBox.hostname}/snapshots/${saved.id}/restore`;
    const { api } = await withBox(testBox, {
      'GET /users/me': reply(200, hacker),
      [listRoute]: reply(200, { snapshots: [saved], slots: 1 }),
      [route]: reply(200, restored),
    });
    const group = snapshotsGroup();
    const restore = await within(group).findByRole('button', { name: restoreSnapshotLabel('hardened') });
    expect(within(group).getByText(/· 12 MB$/)).toBeTruthy();
    fireEvent.click(restore);
    let dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(RESTORE_DIALOG_TEXT)).toBeTruthy();
    expect(within(dialog).getByText('hardened')).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: CANCEL }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.callsTo(route)).toHaveLength(0);
    fireEvent.click(restore);
    dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: CONFIRM_RESTORE }));
    await waitFor(() => expect(api.callsTo(route)).toHaveLength(1));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(await within(boxSection()).findByText(SNAPSHOT_MESSAGES.restored)).toBeTruthy();
  });

  it('deletes after confirming, and shows the server’s reason when a call fails', async () => {
    const route = `DELETE /boxes/${testBox.hostname}/snapshots/${saved.id}`;
    const { api } = await withBox(testBox, {
      'GET /users/me': reply(200, hacker),
      [listRoute]: reply(200, { snapshots: [saved], slots: 3 }),
      [route]: reply(200, { deleted: true }),
      [takeRoute]: fail(409, SNAPSHOT_MESSAGES.noDisk),
    });
    const group = snapshotsGroup();
    fireEvent.click(await within(group).findByRole('button', { name: deleteSnapshotLabel('hardened') }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: CONFIRM_DELETE_SNAPSHOT }));
    await waitFor(() => expect(api.callsTo(route)).toHaveLength(1));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(within(group).queryByText('hardened')).toBeNull());
    expect(within(group).getByText(NO_SNAPSHOTS)).toBeTruthy();

    fireEvent.change(within(group).getByLabelText(SNAPSHOT_NAME), { target: { value: 'first' } });
    fireEvent.click(within(group).getByRole('button', { name: TAKE_SNAPSHOT }));
    const alert = await within(group).findByTestId('snapshot-error');
    expect(alert.textContent).toContain(TAKE_SNAPSHOT_FAILED);
    expect(alert.textContent).toContain(SNAPSHOT_MESSAGES.noDisk);
  });
});
