import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { AppProviders } from './AppProviders.tsx';
import { routes } from './routes/router.tsx';
import { RootStore } from './stores/RootStore.ts';
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
