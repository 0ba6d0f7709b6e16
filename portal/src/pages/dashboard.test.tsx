import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import {
  ATTACKS_WON,
  CURRENT_RANK,
  DEFENSES_WON,
  DEPLOY_A_BOX,
  NO_BOX,
  NO_RECENT_ACTIVITY,
  RANK_MISSING,
  RECENT_GRID_ACTIVITY,
  WELCOME_BACK,
  YOUR_BOX,
} from '../strings/dashboard.ts';
import { fail, reply, testUser } from '../testing/fakeApi.ts';
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
    renderSignedIn('/dashboard');
    const card = await screen.findByRole('region', { name: YOUR_BOX });
    expect(within(card).getByText(NO_BOX)).toBeTruthy();
    expect(within(card).getByRole('link', { name: DEPLOY_A_BOX }).getAttribute('href')).toBe('/box');
  });

  it("says 'No recent attack activity on the grid.' without attacks", async () => {
    renderSignedIn('/dashboard');
    const card = await screen.findByRole('region', { name: RECENT_GRID_ACTIVITY });
    expect(within(card).getByText(NO_RECENT_ACTIVITY)).toBeTruthy();
  });
});
