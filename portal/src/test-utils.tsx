import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { AppProviders } from './AppProviders.tsx';
import { routes } from './routes/router.tsx';
import { RootStore, type RootStoreOptions } from './stores/RootStore.ts';
import { completeOnboarding, fakeApi, openPools, readyRuntime, reply, testUser } from './testing/fakeApi.ts';
import { stripeConfig } from './testing/commerce.ts';
import { fakeSockets } from './testing/fakeSockets.ts';

export type RenderRouteOptions = {
  /** Navigation state of the first entry (what `navigate(path, { state })` would pass). */
  state?: unknown;
  /** A store prepared by the test; by default a fresh one with fake sockets. */
  store?: RootStore;
};

/** Renders the portal's real route table at `path` (path and query), with a fresh RootStore. */
export function renderRoute(path: string, options: RenderRouteOptions = {}) {
  const sockets = fakeSockets();
  const store = options.store ?? new RootStore({ socketFactory: sockets.factory });
  const url = new URL(path, 'http://portal.test');
  const router = createMemoryRouter(routes, {
    initialEntries: [{ pathname: url.pathname, search: url.search, state: options.state }],
  });
  store.attachRouter(router);
  const result = render(
    <AppProviders store={store}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { ...result, router, store, sockets };
}

/** Path and query the router shows now. */
export const locationOf = (router: { state: { location: { pathname: string; search: string } } }) =>
  router.state.location.pathname + router.state.location.search;

/**
 * Renders `path` for a signed-in operator: a token in the store, and an API that knows the user, their
 * stats, logout, and that they have no box yet, ready to create one; a returning player (their first-hour
 * checklist complete) on a platform with payments (`routes` add or replace answers).
 * Sockets are fakes the test can drive; `options` reach the RootStore (a fake `assignLocation`, ...).
 */
export function renderSignedIn(
  path: string,
  routes: Parameters<typeof fakeApi>[0] = {},
  options: Omit<RootStoreOptions, 'socketFactory'> = {},
) {
  const api = fakeApi({
    'GET /users/me': reply(200, testUser),
    'GET /user/stats': reply(200, { rank: 7, attacksWon: 3, defensesWon: 5 }),
    'POST /auth/logout': reply(204),
    'GET /boxes/my': reply(200, null),
    'GET /boxes/runtime': reply(200, readyRuntime),
    'GET /user-vpn/pool-status': reply(200, openPools),
    'GET /user-vpn/my-clients': reply(200, []),
    'GET /users/me/onboarding': reply(200, completeOnboarding),
    'GET /subscription/config': reply(200, stripeConfig),
    ...routes,
  });
  const sockets = fakeSockets();
  const store = new RootStore({ ...options, socketFactory: sockets.factory });
  store.auth.setAccessToken('token-1');
  return { api, ...renderRoute(path, { store }), sockets };
}
