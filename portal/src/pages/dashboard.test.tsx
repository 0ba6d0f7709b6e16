import { VPN_STATUS_NAMESPACE } from '@exploit-grid/api/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { AttackHistoryItem } from '@exploit-grid/api/contracts';
import {
  ATTACKS_WON,
  BOX_STATUS,
  CURRENT_RANK,
  DEFENSES_WON,
  DEPLOY_A_BOX,
  LOADING_RECENT_ACTIVITY,
  MANAGE_POWER,
  NO_BOX,
  NO_RECENT_ACTIVITY,
  RANK_MISSING,
  RECENT_GRID_ACTIVITY,
  RECENT_SKELETON_ROWS,
  WELCOME_BACK,
  YOUR_BOX,
} from '../strings/dashboard.ts';
import { FETCH_BOX_FAILED } from '../strings/box.ts';
import { CREDITS_HINT, GIFT_HINT, RANK_HINT, aboutLabel, boxCostText } from '../strings/hints.ts';
import {
  CHECKLIST_TITLE,
  UNRANKED,
  UNRANKED_HINT,
  WELCOME,
  checklistProgress,
  checklistSteps,
} from '../strings/onboarding.ts';
import { FREE_CREDITS_LABEL, CREDITS_LABEL } from '../strings/appShell.ts';
import { stripeConfig } from '../testing/commerce.ts';
import {
  deferred,
  fail,
  onboardingWith,
  reply,
  testBox,
  testUser,
  type FakeReply,
} from '../testing/fakeApi.ts';
import { renderSignedIn } from '../test-utils.tsx';

const recentRoute = 'GET /attack/history/all?limit=3';
const me = { id: testUser.id, handle: testUser.handle };
const recent = (
  n: number,
  attacker: AttackHistoryItem['attacker'],
  target: AttackHistoryItem['target'],
  outcome: AttackHistoryItem['outcome'],
): AttackHistoryItem => ({
  id: `a0000000-0000-4000-8000-00000000000${n}`,
  attacker,
  target,
  outcome,
  rated: true,
  targetIp: null,
  services: [],
  servicesUp: true,
  createdAt: `2026-03-0${n}T12:00:00.000Z`,
  endedAt: outcome === 'PENDING' ? null : `2026-03-0${n}T12:20:00.000Z`,
});
/** Newest first, as the API answers. */
const recentAttacks = [
  recent(3, me, { id: '00000000-0000-4000-8000-000000000001', handle: 'acid_burn' }, 'OWNED'),
  recent(2, { id: '00000000-0000-4000-8000-000000000002', handle: 'crash_override' }, me, 'TIMEOUT'),
  recent(1, me, { id: '00000000-0000-4000-8000-000000000003', handle: 'joey' }, 'PENDING'),
];

/** The dashboard for a signed-in operator; no recent attacks unless the test says otherwise. */
const renderDashboard = (routes: Parameters<typeof renderSignedIn>[1] = {}) =>
  renderSignedIn('/dashboard', { [recentRoute]: reply(200, []), ...routes });

/** The number shown on a stat card. */
const stat = (label: string) => within(screen.getByRole('group', { name: label })).getByRole('paragraph');

describe('dashboard', () => {
  it("greets the operator by handle, titled 'Dashboard | Exploit Grid'", async () => {
    renderDashboard();
    const heading = await screen.findByRole('heading', { level: 1, name: new RegExp(WELCOME_BACK) });
    expect(heading.textContent).toBe(`${WELCOME_BACK} ${testUser.handle}`);
    await waitFor(() => expect(document.title).toBe('Dashboard | Exploit Grid'));
  });

  it('shows rank, attacks won and defenses won from the stats', async () => {
    renderDashboard({
      'GET /user/stats': reply(200, { rank: 7, attacksWon: 3, defensesWon: 5 }),
    });
    await waitFor(() => expect(stat(CURRENT_RANK).textContent).toBe('7'));
    expect(stat(ATTACKS_WON).textContent).toBe('3');
    expect(stat(DEFENSES_WON).textContent).toBe('5');
  });

  it("shows 'N/A' for a rank the operator does not have yet", async () => {
    const { api } = renderDashboard({
      'GET /user/stats': reply(200, { rank: null, attacksWon: 1, defensesWon: 0 }),
    });
    await waitFor(() => expect(stat(ATTACKS_WON).textContent).toBe('1'));
    expect(stat(CURRENT_RANK).textContent).toBe(RANK_MISSING);
    expect(api.callsTo('GET /user/stats')[0]?.authorization).toBe('Bearer token-1');
  });

  it("falls back to 'N/A', 0 and 0 when the stats cannot be loaded", async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { api } = renderDashboard({ 'GET /user/stats': fail(500, 'Boom') });
    await screen.findByRole('heading', { level: 1, name: new RegExp(WELCOME_BACK) });
    await waitFor(() => expect(api.callsTo('GET /user/stats')).toHaveLength(1));
    expect(stat(CURRENT_RANK).textContent).toBe(RANK_MISSING);
    expect(stat(ATTACKS_WON).textContent).toBe('0');
    expect(stat(DEFENSES_WON).textContent).toBe('0');
  });

  it("offers 'Deploy a Box' in the 'Your Box' card when no box is provisioned", async () => {
    const { api } = renderDashboard();
    const card = await screen.findByRole('region', { name: YOUR_BOX });
    expect(await within(card).findByText(NO_BOX)).toBeTruthy();
    expect(within(card).getByRole('link', { name: DEPLOY_A_BOX }).getAttribute('href')).toBe('/box');
    expect(within(card).queryByRole('link', { name: MANAGE_POWER })).toBeNull();
    expect(api.callsTo('GET /boxes/my')).toHaveLength(1);
  });

  it("shows the box's hostname, a green dot while RUNNING and 'Manage Power' to /box", async () => {
    renderDashboard({ 'GET /boxes/my': reply(200, testBox) });
    const card = await screen.findByRole('region', { name: YOUR_BOX });
    expect((await within(card).findByTestId('box-hostname')).textContent).toBe(testBox.hostname);
    const status = within(card).getByRole('status', { name: BOX_STATUS });
    expect(status.textContent).toBe('RUNNING');
    expect(within(status).getByTestId('status-dot').getAttribute('data-healthy')).toBe('true');
    expect(within(card).getByRole('link', { name: MANAGE_POWER }).getAttribute('href')).toBe('/box');
    expect(within(card).queryByText(NO_BOX)).toBeNull();
  });

  it('shows a red dot for a box that is not running, and follows live updates', async () => {
    const { sockets } = renderDashboard({
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
    renderDashboard({ 'GET /boxes/my': fail(500, 'Boom') });
    const card = await screen.findByRole('region', { name: YOUR_BOX });
    expect(await within(card).findByText(FETCH_BOX_FAILED)).toBeTruthy();
    expect(within(card).queryByText(NO_BOX)).toBeNull();
  });

  it("says 'No recent attack activity on the grid.' without attacks", async () => {
    const { api } = renderDashboard({ [recentRoute]: reply(200, []) });
    const card = await screen.findByRole('region', { name: RECENT_GRID_ACTIVITY });
    expect(await within(card).findByText(NO_RECENT_ACTIVITY)).toBeTruthy();
    expect(within(card).queryByRole('listitem')).toBeNull();
    expect(api.callsTo(recentRoute)).toHaveLength(1);
  });

  it("lists the 3 latest attacks as '{attacker} targeted {target}', OWNED with a high badge", async () => {
    const { api } = renderDashboard({ [recentRoute]: reply(200, recentAttacks) });
    const card = await screen.findByRole('region', { name: RECENT_GRID_ACTIVITY });
    const rows = await within(card).findAllByTestId('recent-attack');
    expect(rows.map((row) => row.textContent)).toEqual([
      'zero_cool targeted acid_burn',
      'crash_override targeted zero_cool',
      'zero_cool targeted joey',
    ]);
    const badges = within(card).getAllByTestId('outcome-badge');
    expect(badges.map((badge) => [badge.textContent, badge.getAttribute('data-severity')])).toEqual([
      ['Owned', 'high'],
      ['Timeout', 'low'],
      ['In Progress', 'low'],
    ]);
    expect(badges[0]?.className).toMatch(/colorError/);
    expect(badges[1]?.className).toMatch(/colorDefault/);
    expect(within(card).queryByText(NO_RECENT_ACTIVITY)).toBeNull();
    expect(api.callsTo(recentRoute)[0]?.authorization).toBe('Bearer token-1');
  });

  it('shows a skeleton of 5 rows while the recent attacks load', async () => {
    const answer = deferred<FakeReply>();
    renderDashboard({ [recentRoute]: () => answer.promise });
    const card = await screen.findByRole('region', { name: RECENT_GRID_ACTIVITY });
    const skeleton = within(card).getByRole('status', { name: LOADING_RECENT_ACTIVITY });
    expect(skeleton.children).toHaveLength(RECENT_SKELETON_ROWS);
    expect(within(card).queryByText(NO_RECENT_ACTIVITY)).toBeNull();
    answer.resolve(reply(200, recentAttacks));
    expect(await within(card).findAllByTestId('recent-attack')).toHaveLength(3);
    expect(within(card).queryByRole('status', { name: LOADING_RECENT_ACTIVITY })).toBeNull();
  });

  it('only logs a failure to load the recent attacks: the card says there is no activity', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    renderDashboard({ [recentRoute]: fail(500, 'Boom') });
    const card = await screen.findByRole('region', { name: RECENT_GRID_ACTIVITY });
    expect(await within(card).findByText(NO_RECENT_ACTIVITY)).toBeTruthy();
    expect(warn).toHaveBeenCalledWith('Could not load the recent attacks', expect.anything());
    expect(screen.queryByText(/Boom/)).toBeNull();
  });
});

const onboardingRoute = 'GET /users/me/onboarding';
/** The checklist's steps as shown: [step, done]. */
const shownSteps = (list: HTMLElement) =>
  within(list)
    .getAllByRole('listitem')
    .map((item) => [item.getAttribute('data-step'), item.getAttribute('data-done') === 'true']);
/** The accessible description of an element, as its aria-describedby points to it. */
const descriptionOf = (element: HTMLElement) =>
  (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ')
    .trim();

describe('dashboard: the first hour', () => {
  it("greets a new player with 'Welcome, Operator' and lists the steps as the server reports them", async () => {
    const { api } = renderDashboard({ [onboardingRoute]: reply(200, onboardingWith(['BOX_DEPLOYED'])) });
    const checklist = await screen.findByRole('region', { name: CHECKLIST_TITLE });
    expect(shownSteps(checklist)).toEqual([
      ['BOX_DEPLOYED', true],
      ['VPN_CONFIG_DOWNLOADED', false],
      ['TUNNEL_UP', false],
      ['FIRST_SSH', false],
      ['FIRST_MATCH', false],
    ]);
    expect(within(checklist).getByTestId('onboarding-progress').textContent).toBe(checklistProgress(1, 5));
    expect(within(checklist).getByTitle('Done')).toBeTruthy();
    // The next step is marked, with how to do it and where.
    const next = within(checklist).getAllByRole('listitem')[1]!;
    expect(next.getAttribute('aria-current')).toBe('step');
    expect(next.textContent).toContain(checklistSteps.VPN_CONFIG_DOWNLOADED.how);
    expect(
      within(next)
        .getByRole('link', { name: checklistSteps.VPN_CONFIG_DOWNLOADED.action })
        .getAttribute('href'),
    ).toBe('/box');
    const heading = screen.getByRole('heading', { level: 1 });
    expect(heading.textContent).toBe(`${WELCOME} ${testUser.handle}`);
    expect(api.callsTo(onboardingRoute)[0]?.authorization).toBe('Bearer token-1');
  });

  it('ticks a step when the server reports it, read again when the VPN connection comes up, and goes once complete', async () => {
    const { api, sockets } = renderDashboard({
      [onboardingRoute]: reply(200, onboardingWith(['BOX_DEPLOYED', 'VPN_CONFIG_DOWNLOADED'])),
    });
    const checklist = await screen.findByRole('region', { name: CHECKLIST_TITLE });
    expect(shownSteps(checklist)[2]).toEqual(['TUNNEL_UP', false]);
    api.on(
      onboardingRoute,
      reply(200, onboardingWith(['BOX_DEPLOYED', 'VPN_CONFIG_DOWNLOADED', 'TUNNEL_UP'])),
    );
    const [vpn] = sockets.open(VPN_STATUS_NAMESPACE);
    act(() => vpn?.receive('status', { status: true }));
    await waitFor(() => expect(shownSteps(checklist)[2]).toEqual(['TUNNEL_UP', true]));
    expect(within(checklist).getByTestId('onboarding-progress').textContent).toBe(checklistProgress(3, 5));

    // Everything done: the checklist is over, and the player is a returning one.
    api.on(
      onboardingRoute,
      reply(
        200,
        onboardingWith(['BOX_DEPLOYED', 'VPN_CONFIG_DOWNLOADED', 'TUNNEL_UP', 'FIRST_SSH', 'FIRST_MATCH']),
      ),
    );
    act(() => vpn?.receive('status', { status: false }));
    await waitFor(() => expect(screen.queryByRole('region', { name: CHECKLIST_TITLE })).toBeNull());
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(`${WELCOME_BACK} ${testUser.handle}`);
  });

  it('shows only the steps the server lists (no ssh step where the platform cannot see it)', async () => {
    const steps = ['BOX_DEPLOYED', 'VPN_CONFIG_DOWNLOADED', 'TUNNEL_UP', 'FIRST_MATCH'] as const;
    renderDashboard({ [onboardingRoute]: reply(200, onboardingWith(['TUNNEL_UP'], steps)) });
    const checklist = await screen.findByRole('region', { name: CHECKLIST_TITLE });
    expect(shownSteps(checklist).map(([step]) => step)).toEqual([...steps]);
    expect(within(checklist).getByTestId('onboarding-progress').textContent).toBe(checklistProgress(1, 4));
  });

  it("shows neither the checklist nor 'Welcome' to a returning player", async () => {
    renderDashboard();
    await screen.findByRole('heading', { level: 1, name: new RegExp(WELCOME_BACK) });
    expect(screen.queryByRole('region', { name: CHECKLIST_TITLE })).toBeNull();
    expect(screen.queryByTestId('onboarding-checklist')).toBeNull();
  });

  it("says 'Unranked' with a hint before a first fight, never the leaderboard's rank", async () => {
    renderDashboard({
      'GET /user/stats': reply(200, { rank: 1, attacksWon: 0, defensesWon: 0 }),
      [onboardingRoute]: reply(200, onboardingWith(['BOX_DEPLOYED'])),
    });
    await waitFor(() => expect(stat(CURRENT_RANK).textContent).toBe(UNRANKED));
    const card = screen.getByRole('group', { name: CURRENT_RANK });
    expect(within(card).getByTestId('stat-note').textContent).toBe(UNRANKED_HINT);
    expect(within(card).queryByText('1')).toBeNull();
  });

  it('shows the rank once the player has fought, though the checklist is not complete', async () => {
    renderDashboard({
      'GET /user/stats': reply(200, { rank: 4, attacksWon: 1, defensesWon: 0 }),
      [onboardingRoute]: reply(200, onboardingWith(['BOX_DEPLOYED', 'FIRST_MATCH'])),
    });
    await waitFor(() => expect(stat(CURRENT_RANK).textContent).toBe('4'));
    expect(screen.queryByTestId('stat-note')).toBeNull();
  });

  it('explains the rank, credits and Gift behind info buttons, for the keyboard and screen readers', async () => {
    renderDashboard();
    const rankInfo = await screen.findByRole('button', { name: aboutLabel(CURRENT_RANK) });
    expect(descriptionOf(rankInfo)).toBe(RANK_HINT);
    expect(screen.queryByRole('tooltip')).toBeNull();
    fireEvent.click(rankInfo);
    expect((await screen.findByRole('tooltip')).textContent).toBe(RANK_HINT);
    fireEvent.keyDown(rankInfo, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('tooltip')).toBeNull());
    // The sidebar's balances.
    expect(descriptionOf(screen.getByRole('button', { name: aboutLabel(CREDITS_LABEL) }))).toBe(CREDITS_HINT);
    expect(descriptionOf(screen.getByRole('button', { name: aboutLabel(FREE_CREDITS_LABEL) }))).toBe(
      GIFT_HINT,
    );
  });

  it("says what a box costs on the player's tier, with the minimum charge and daily limit the server configures", async () => {
    const { api } = renderDashboard({
      'GET /subscription/config': reply(200, {
        ...stripeConfig,
        basicDailyLimitMinutes: 45,
        boxMinimumChargeMinutes: 7,
      }),
    });
    const card = await screen.findByRole('region', { name: YOUR_BOX });
    const expected = boxCostText({ hourCost: 40, tier: 'BASIC', minimumMinutes: 7, dailyLimitMinutes: 45 });
    await waitFor(() => expect(within(card).getByTestId('box-cost').textContent).toContain(expected));
    expect(expected).toContain('40 credits an hour on Basic');
    expect(expected).toContain('at least 7 minutes');
    expect(expected).toContain('up to 45 minutes a day');
    expect(api.callsTo('GET /subscription/config')).toHaveLength(1);
  });
});
