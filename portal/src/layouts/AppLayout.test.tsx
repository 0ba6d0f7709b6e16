import { GRID_NAMESPACE, VPN_STATUS_NAMESPACE } from '@exploit-grid/api/contracts';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { SidebarCredits } from '../components/shell/SidebarCredits.tsx';
import {
  BOX_STATE_TEXT,
  BRAND_SHORT,
  CLOSE_NAVIGATION,
  COLLAPSE_SIDEBAR,
  COMING_SOON,
  CREDITS_LABEL,
  EXPAND_SIDEBAR,
  FREE_CREDITS_LABEL,
  LOADING_USER,
  LOGOUT_LABEL,
  OFF_THE_GRID,
  ON_THE_GRID,
  OPEN_NAVIGATION,
  REDEEM_GIFT,
  RETRY,
  SETTINGS_LABEL,
  SIDEBAR_LABEL,
  USER_LOAD_FAILED,
  VPN_DOWN,
  VPN_DOWN_HINT,
  VPN_UP,
  formatCredits,
  navItems,
} from '../strings/appShell.ts';
import { WELCOME_BACK } from '../strings/dashboard.ts';
import { NOT_FOUND_TEXT } from '../strings/site.ts';
import {
  deferred,
  fail,
  fakeApi,
  reply,
  testBox,
  testUser,
  tokenAnswer,
  type FakeReply,
} from '../testing/fakeApi.ts';
import { fakeSockets } from '../testing/fakeSockets.ts';
import { RootStore } from '../stores/RootStore.ts';
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

  it('shows the grid, the VPN and the box each on its own in the top bar, live', async () => {
    const { sockets } = await shell('/dashboard', { 'GET /boxes/my': reply(200, testBox) });
    const status = screen.getByRole('group', { name: 'Connection status' });
    const [grid] = sockets.open(GRID_NAMESPACE);
    const [vpn] = sockets.open(VPN_STATUS_NAMESPACE);
    act(() => grid?.receive('connect'));
    expect(within(status).getByTestId('connection-badge').textContent).toBe(ON_THE_GRID);
    // The grid is up, the tunnel is not: the status says so, and where to fix it.
    const vpnPill = within(status).getByTestId('status-vpn');
    expect(vpnPill.textContent).toBe(VPN_DOWN);
    expect(vpnPill.getAttribute('href')).toBe('/box');
    expect(vpnPill.getAttribute('title')).toBe(VPN_DOWN_HINT);
    await waitFor(() =>
      expect(within(status).getByTestId('status-box').textContent).toBe(BOX_STATE_TEXT.RUNNING),
    );
    act(() => vpn?.receive('status', { status: true }));
    expect(vpnPill.textContent).toBe(VPN_UP);
    act(() => grid?.receive('disconnect'));
    expect(within(status).getByTestId('connection-badge').textContent).toBe(OFF_THE_GRID);
    expect(vpnPill.textContent).toBe(VPN_UP);
  });

  it("says 'No box yet' for an operator without a box", async () => {
    await shell('/dashboard');
    await waitFor(() => expect(screen.getByTestId('status-box').textContent).toBe(BOX_STATE_TEXT.NONE));
  });
});

describe('authenticated layout on a phone', () => {
  // Every media query of the layout asks 'narrower than': on a phone they all match.
  const phone = () =>
    vi.stubGlobal('matchMedia', (query: string) => ({
      matches: query.includes('max-width'),
      media: query,
      onchange: null,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      addListener: () => undefined,
      removeListener: () => undefined,
      dispatchEvent: () => false,
    }));

  it('hides the sidebar in a drawer that the menu button opens and a link closes', async () => {
    phone();
    const { router } = renderSignedIn('/dashboard');
    const menu = await screen.findByRole('button', { name: OPEN_NAVIGATION });
    expect(screen.queryByRole('navigation', { name: SIDEBAR_LABEL })).toBeNull();
    expect(menu.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(menu);
    const nav = await screen.findByRole('navigation', { name: SIDEBAR_LABEL });
    expect(menu.getAttribute('aria-expanded')).toBe('true');
    // Always expanded in the drawer: no collapse toggle, labels shown.
    expect(within(nav).queryByRole('button', { name: COLLAPSE_SIDEBAR })).toBeNull();
    expect(within(nav).getByText('My Box')).toBeTruthy();
    fireEvent.click(within(nav).getByRole('link', { name: 'My Box' }));
    await waitFor(() => expect(locationOf(router)).toBe('/box'));
    await waitFor(() => expect(screen.queryByRole('navigation', { name: SIDEBAR_LABEL })).toBeNull());
  });

  it('closes the drawer with its own button', async () => {
    phone();
    renderSignedIn('/dashboard');
    fireEvent.click(await screen.findByRole('button', { name: OPEN_NAVIGATION }));
    const nav = await screen.findByRole('navigation', { name: SIDEBAR_LABEL });
    fireEvent.click(within(nav).getByRole('button', { name: CLOSE_NAVIGATION }));
    await waitFor(() => expect(screen.queryByRole('navigation', { name: SIDEBAR_LABEL })).toBeNull());
  });

  it('folds the status into one button whose popover says each in words', async () => {
    phone();
    const { sockets } = renderSignedIn('/dashboard');
    const button = await screen.findByRole('button', { name: /^Connection status: / });
    const [grid] = sockets.open(GRID_NAMESPACE);
    act(() => grid?.receive('connect'));
    await waitFor(() =>
      expect(button.getAttribute('aria-label')).toBe(
        `Connection status: ${ON_THE_GRID}, ${VPN_DOWN}, ${BOX_STATE_TEXT.NONE}`,
      ),
    );
    fireEvent.click(button);
    const dialog = await screen.findByRole('dialog', { name: 'Connection status' });
    expect(within(dialog).getByText(VPN_DOWN)).toBeTruthy();
    expect(within(dialog).getByRole('link', { name: VPN_DOWN_HINT }).getAttribute('href')).toBe('/box');
  });
});

describe('public pages for a signed-in visitor', () => {
  const signedIn = () => {
    fakeApi({ 'GET /users/me': reply(200, testUser), 'GET /boxes/my': reply(200, null) });
    const store = new RootStore({ socketFactory: fakeSockets().factory });
    store.auth.setAccessToken('token-1');
    return store;
  };

  it.each(['/', '/login', '/signup'])('sends them from %s to the dashboard', async (path) => {
    const { router } = renderRoute(path, { store: signedIn() });
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard'));
  });

  it('leaves them on /login when it carries a verification result, and on other public pages', async () => {
    const store = signedIn();
    const { router } = renderRoute('/login?verified=true', { store });
    await act(() => router.navigate('/how-to-play'));
    expect(locationOf(router)).toBe('/how-to-play');
    await act(() => router.navigate('/login?verified=true'));
    expect(locationOf(router)).toBe('/login?verified=true');
  });
});
