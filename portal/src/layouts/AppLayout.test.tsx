import { GRID_NAMESPACE, VPN_STATUS_NAMESPACE } from '@exploit-grid/api/contracts';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { SidebarCredits } from '../components/shell/SidebarCredits.tsx';
import {
  BRAND_SHORT,
  COLLAPSE_SIDEBAR,
  COMING_SOON,
  CREDITS_LABEL,
  EXPAND_SIDEBAR,
  FREE_CREDITS_LABEL,
  LOADING_USER,
  LOGOUT_LABEL,
  OFF_THE_GRID,
  ON_THE_GRID,
  REDEEM_GIFT,
  RETRY,
  SETTINGS_LABEL,
  SIDEBAR_LABEL,
  USER_LOAD_FAILED,
  formatCredits,
  navItems,
} from '../strings/appShell.ts';
import { WELCOME_BACK } from '../strings/dashboard.ts';
import { NOT_FOUND_TEXT } from '../strings/site.ts';
import { deferred, fail, fakeApi, reply, testUser, tokenAnswer, type FakeReply } from '../testing/fakeApi.ts';
import { locationOf, renderRoute, renderSignedIn } from '../test-utils.tsx';

const sidebar = () => screen.getByRole('navigation', { name: SIDEBAR_LABEL });
const badge = () => screen.getByTestId('connection-badge');
const content = () => screen.getByTestId('app-content');

/** Renders a signed-in page and waits for the layout to show (the user loaded). */
async function shell(path = '/dashboard', routes: Parameters<typeof renderSignedIn>[1] = {}) {
  const rendered = renderSignedIn(path, routes);
  await screen.findByRole('navigation', { name: SIDEBAR_LABEL });
  return rendered;
}

describe('authenticated layout', () => {
  it('sends a visitor without a token to /login and remembers the page for after login', async () => {
    fakeApi();
    const { router, store } = renderRoute('/dashboard?panel=stats');
    await waitFor(() => expect(locationOf(router)).toBe('/login'));
    expect(store.auth.takeRedirect()).toBe('/dashboard?panel=stats');
  });

  it('shows the pulsing logo while the current user loads', async () => {
    const me = deferred<FakeReply>();
    renderSignedIn('/dashboard', { 'GET /users/me': () => me.promise });
    expect(await screen.findByRole('status', { name: LOADING_USER })).toBeTruthy();
    expect(screen.queryByRole('navigation', { name: SIDEBAR_LABEL })).toBeNull();
    me.resolve(reply(200, testUser));
    expect(await screen.findByRole('navigation', { name: SIDEBAR_LABEL })).toBeTruthy();
    expect(screen.queryByRole('status', { name: LOADING_USER })).toBeNull();
  });

  it('logs out and goes to /login when the user is refused (401) and the refresh does not help', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { api, router, store } = renderSignedIn('/dashboard', {
      'GET /users/me': fail(401, 'Unauthorized'),
      'POST /auth/refresh': tokenAnswer('token-2'),
    });
    await waitFor(() => expect(locationOf(router)).toBe('/login'));
    expect(api.callsTo('POST /auth/logout')).toHaveLength(1);
    expect(store.auth.accessToken).toBeNull();
  });

  it('ends the session once when the user is refused and so is the refresh', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { api, router, store } = renderSignedIn('/dashboard', {
      'GET /users/me': fail(401, 'Unauthorized'),
      'POST /auth/refresh': fail(401, 'Unauthorized'),
    });
    await waitFor(() => expect(locationOf(router)).toBe('/login'));
    expect(api.callsTo('POST /auth/logout')).toHaveLength(1);
    expect(store.auth.accessToken).toBeNull();
    expect(store.auth.takeRedirect()).toBe('/dashboard');
  });

  it.each([
    ['a 500', () => fail(500, 'Boom')],
    [
      'a network error',
      () => {
        throw new TypeError('Failed to fetch');
      },
    ],
  ])('keeps the session when the user cannot be loaded (%s), and offers to retry', async (_name, answer) => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { api, router, store } = renderSignedIn('/dashboard', { 'GET /users/me': answer });
    expect(await screen.findByText(USER_LOAD_FAILED)).toBeTruthy();
    expect(locationOf(router)).toBe('/dashboard');
    expect(api.callsTo('POST /auth/logout')).toHaveLength(0);
    expect(store.auth.accessToken).toBe('token-1');
    expect(screen.queryByRole('navigation', { name: SIDEBAR_LABEL })).toBeNull();

    api.on('GET /users/me', reply(200, testUser));
    fireEvent.click(screen.getByRole('button', { name: RETRY }));
    expect(await screen.findByRole('navigation', { name: SIDEBAR_LABEL })).toBeTruthy();
    expect(screen.queryByText(USER_LOAD_FAILED)).toBeNull();
    expect(api.callsTo('GET /users/me')).toHaveLength(2);
  });

  it('keeps the session when the refresh for the user fails for a transient reason (503)', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { api, router, store } = renderSignedIn('/dashboard', {
      'GET /users/me': fail(401, 'Unauthorized'),
      'POST /auth/refresh': fail(503, 'Unavailable'),
    });
    expect(await screen.findByText(USER_LOAD_FAILED)).toBeTruthy();
    expect(locationOf(router)).toBe('/dashboard');
    expect(api.callsTo('POST /auth/logout')).toHaveLength(0);
    expect(store.auth.accessToken).toBe('token-1');
  });

  it('lists the pages in the sidebar, with Learn and Jobs disabled', async () => {
    await shell();
    const nav = sidebar();
    for (const item of navItems.filter((i) => !i.disabled)) {
      expect(within(nav).getByRole('link', { name: item.label }).getAttribute('href')).toBe(item.to);
    }
    for (const label of ['Learn', 'Jobs']) {
      expect(within(nav).queryByRole('link', { name: label })).toBeNull();
      expect(within(nav).getByRole('button', { name: label }).getAttribute('aria-disabled')).toBe('true');
    }
    expect(within(nav).getByRole('link', { name: SETTINGS_LABEL }).getAttribute('href')).toBe('/settings');
    expect(within(nav).getByRole('link', { name: 'Exploit Grid' }).getAttribute('href')).toBe('/dashboard');
  });

  it.each(['Learn', 'Jobs'])("shows 'Coming soon' over the disabled %s entry", async (label) => {
    await shell();
    fireEvent.mouseOver(within(sidebar()).getByRole('button', { name: label }));
    expect((await screen.findByRole('tooltip')).textContent).toBe(COMING_SOON);
  });

  it('shows credits and free credits with 2 decimals, and the Redeem Gift link', async () => {
    await shell('/dashboard', {
      'GET /users/me': reply(200, { ...testUser, credits: 12.5, freeCredits: 3 }),
    });
    expect(screen.getByTestId('credits').textContent).toBe('12.50');
    expect(screen.getByTestId('free-credits').textContent).toBe('3.00');
    expect(within(sidebar()).getByText(CREDITS_LABEL)).toBeTruthy();
    expect(within(sidebar()).getByText(FREE_CREDITS_LABEL)).toBeTruthy();
    const redeem = within(sidebar()).getByRole('link', { name: REDEEM_GIFT });
    expect(redeem.getAttribute('href')).toBe('/redeem');
    expect(redeem.getAttribute('title')).toBe(REDEEM_GIFT);
  });

  it("shows '0.00' for a balance that is missing", () => {
    expect(formatCredits(undefined)).toBe('0.00');
    expect(formatCredits(null)).toBe('0.00');
    render(
      <MemoryRouter>
        <SidebarCredits credits={undefined} freeCredits={undefined} collapsed={false} />
      </MemoryRouter>,
    );
    expect(screen.getByTestId('credits').textContent).toBe('0.00');
    expect(screen.getByTestId('free-credits').textContent).toBe('0.00');
  });

  it("is 16rem wide, collapses to 5rem with the toggle, hides labels and Redeem, and the badge reads 'EG'", async () => {
    await shell();
    expect(getComputedStyle(sidebar()).width).toBe('256px');
    expect(badge().textContent).toBe(OFF_THE_GRID);
    fireEvent.click(screen.getByRole('button', { name: COLLAPSE_SIDEBAR }));
    expect(getComputedStyle(sidebar()).width).toBe('80px');
    expect(within(sidebar()).queryByText('Dashboard')).toBeNull();
    expect(within(sidebar()).getByRole('link', { name: 'Dashboard' })).toBeTruthy();
    expect(within(sidebar()).queryByRole('link', { name: REDEEM_GIFT })).toBeNull();
    expect(badge().textContent).toBe(BRAND_SHORT);
    expect(screen.getByRole('status', { name: OFF_THE_GRID })).toBe(badge());
    fireEvent.click(screen.getByRole('button', { name: EXPAND_SIDEBAR }));
    expect(getComputedStyle(sidebar()).width).toBe('256px');
  });

  it("opens both sockets on entry; the badge reads 'On the Grid' while the grid is connected", async () => {
    const { sockets } = await shell();
    const [grid] = sockets.open(GRID_NAMESPACE);
    expect(sockets.open(VPN_STATUS_NAMESPACE)).toHaveLength(1);
    expect(grid?.handshake).toEqual({ token: 'token-1', userId: testUser.id });
    expect(badge().textContent).toBe(OFF_THE_GRID);
    act(() => grid?.receive('connect'));
    expect(badge().textContent).toBe(ON_THE_GRID);
    expect(badge().getAttribute('data-connected')).toBe('true');
    act(() => grid?.receive('connect_error', new Error('xhr poll error')));
    expect(badge().textContent).toBe(OFF_THE_GRID);
  });

  it('logs out from the sidebar: tells the grid, closes both sockets and goes to /login', async () => {
    const { api, sockets, router, store } = await shell();
    const [grid] = sockets.open(GRID_NAMESPACE);
    fireEvent.click(within(sidebar()).getByRole('button', { name: LOGOUT_LABEL }));
    await waitFor(() => expect(locationOf(router)).toBe('/login'));
    expect(api.callsTo('POST /auth/logout')).toHaveLength(1);
    expect(grid?.emitted.map((e) => e.event)).toContain('logout');
    expect(sockets.sockets.every((s) => s.closed)).toBe(true);
    expect(store.auth.accessToken).toBeNull();
  });

  it('pads the content, except on routes starting with /attack or /redeem', async () => {
    const { router } = await shell('/dashboard');
    await screen.findByRole('heading', { name: new RegExp(WELCOME_BACK) });
    expect(getComputedStyle(content()).paddingLeft).not.toBe('0px');
    for (const path of ['/attack', '/redeem', '/dashboard']) {
      await act(() => router.navigate(path));
      expect(getComputedStyle(content()).paddingLeft === '0px').toBe(path !== '/dashboard');
    }
  });

  it('shows the not-found content inside the layout for a signed-in page not built yet', async () => {
    await shell('/settings');
    expect(within(content()).getByText(NOT_FOUND_TEXT)).toBeTruthy();
  });
});
