import { VPN_STATUS_NAMESPACE } from '@exploit-grid/api/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import {
  ATTACKS_WON,
  BOX_STATUS,
  CURRENT_RANK,
  DEFENSES_WON,
  DEPLOY_A_BOX,
  MANAGE_POWER,
  NO_BOX,
  NO_RECENT_ACTIVITY,
  RANK_MISSING,
  RECENT_GRID_ACTIVITY,
  WELCOME_BACK,
  YOUR_BOX,
} from '../strings/dashboard.ts';
import { FETCH_BOX_FAILED } from '../strings/box.ts';
import { fail, reply, testBox, testUser } from '../testing/fakeApi.ts';
import { renderSignedIn } from '../test-utils.tsx';

/** The number shown on a stat card. */
const stat = (label: string) => within(screen.getByRole('group', { name: label })).getByRole('paragraph');

describe('dashboard', () => {
  it("greets the operator by handle, titled 'Dashboard | Exploit Grid'", async () => {
    renderSignedIn('/dashboard');
    const heading = await screen.findByRole('heading', { level: 1, name: new RegExp(WELCOME_BACK) });
    expect(heading.textContent).toBe(`${WELCOME_BACK} ${testUser.handle}`);
    await waitFor(() => expect(document.title).toBe('Dashboard | Exploit Grid'));
  });

  it('shows rank, attacks won and defenses won from the stats', async () => {
    renderSignedIn('/dashboard', {
      'GET /user/stats': reply(200, { rank: 7, attacksWon: 3, defensesWon: 5 }),
    });
    await waitFor(() => expect(stat(CURRENT_RANK).textContent).toBe('7'));
    expect(stat(ATTACKS_WON).textContent).toBe('3');
    expect(stat(DEFENSES_WON).textContent).toBe('5');
  });

  it("shows 'N/A' for a rank the operator does not have yet", async () => {
    const { api } = renderSignedIn('/dashboard', {
      'GET /user/stats': reply(200, { rank: null, attacksWon: 1, defensesWon: 0 }),
    });
    await waitFor(() => expect(stat(ATTACKS_WON).textContent).toBe('1'));
    expect(stat(CURRENT_RANK).textContent).toBe(RANK_MISSING);
    expect(api.callsTo('GET /user/stats')[0]?.authorization).toBe('Bearer token-1');
  });

  it("falls back to 'N/A', 0 and 0 when the stats cannot be loaded", async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { api } = renderSignedIn('/dashboard', { 'GET /user/stats': fail(500, 'Boom') });
    await screen.findByRole('heading', { level: 1, name: new RegExp(WELCOME_BACK) });
    await waitFor(() => expect(api.callsTo('GET /user/stats')).toHaveLength(1));
    expect(stat(CURRENT_RANK).textContent).toBe(RANK_MISSING);
    expect(stat(ATTACKS_WON).textContent).toBe('0');
    expect(stat(DEFENSES_WON).textContent).toBe('0');
  });

  it("offers 'Deploy a Box' in the 'Your Box' card when no box is provisioned", async () => {
    const { api } = renderSignedIn('/dashboard');
    const card = await screen.findByRole('region', { name: YOUR_BOX });
    expect(await within(card).findByText(NO_BOX)).toBeTruthy();
    expect(within(card).getByRole('link', { name: DEPLOY_A_BOX }).getAttribute('href')).toBe('/box');
    expect(within(card).queryByRole('link', { name: MANAGE_POWER })).toBeNull();
    expect(api.callsTo('GET /boxes/my')).toHaveLength(1);
  });

  it("shows the box's hostname, a green dot while RUNNING and 'Manage Power' to /box", async () => {
    renderSignedIn('/dashboard', { 'GET /boxes/my': reply(200, testBox) });
    const card = await screen.findByRole('region', { name: YOUR_BOX });
    expect((await within(card).findByTestId('box-hostname')).textContent).toBe(testBox.hostname);
    const status = within(card).getByRole('status', { name: BOX_STATUS });
    expect(status.textContent).toBe('RUNNING');
    expect(within(status).getByTestId('status-dot').getAttribute('data-healthy')).toBe('true');
    expect(within(card).getByRole('link', { name: MANAGE_POWER }).getAttribute('href')).toBe('/box');
    expect(within(card).queryByText(NO_BOX)).toBeNull();
  });

  it('shows a red dot for a box that is not running, and follows live updates', async () => {
    const { sockets } = renderSignedIn('/dashboard', {
      'GET /boxes/my': reply(200, { ...testBox, status: 'STOPPED' }),
    });
    const card = await screen.findByRole('region', { name: YOUR_BOX });
    await within(card).findByTestId('box-hostname');
    const dot = () => within(card).getByTestId('status-dot');
    expect(dot().getAttribute('data-healthy')).toBe('false');
    expect(within(card).getByRole('status', { name: BOX_STATUS }).textContent).toBe('STOPPED');
    const [vpn] = sockets.open(VPN_STATUS_NAMESPACE);
    act(() =>
      vpn?.receive('boxUpdate', {
        id: testBox.id,
        hostname: testBox.hostname,
        status: 'RUNNING',
        accumulatedUsageSeconds: testBox.accumulatedUsageSeconds,
        lastPoweredAt: testBox.lastPoweredAt,
        vpnIp: testBox.ip,
        vpnClients: [],
        dailyRemainingSeconds: null,
        statusReason: null,
        openPorts: {},
      }),
    );
    expect(dot().getAttribute('data-healthy')).toBe('true');
    act(() => vpn?.receive('boxUpdate', { ...testBox, vpnIp: testBox.ip, deleted: true }));
    expect(await within(card).findByText(NO_BOX)).toBeTruthy();
  });

  it("says 'Failed to fetch box information.' in the card when the box cannot be loaded", async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    renderSignedIn('/dashboard', { 'GET /boxes/my': fail(500, 'Boom') });
    const card = await screen.findByRole('region', { name: YOUR_BOX });
    expect(await within(card).findByText(FETCH_BOX_FAILED)).toBeTruthy();
    expect(within(card).queryByText(NO_BOX)).toBeNull();
  });

  it("says 'No recent attack activity on the grid.' without attacks", async () => {
    renderSignedIn('/dashboard');
    const card = await screen.findByRole('region', { name: RECENT_GRID_ACTIVITY });
    expect(within(card).getByText(NO_RECENT_ACTIVITY)).toBeTruthy();
  });
});
