import { createBrowserRouter, type RouteObject } from 'react-router';
import { PulsingLogo } from '../components/PulsingLogo.tsx';
import { PublicLayout } from '../layouts/PublicLayout.tsx';
import { HomePage } from '../pages/HomePage.tsx';
import { NotFoundPage } from '../pages/NotFoundPage.tsx';
import { paths } from './paths.ts';

/**
 * Route objects of the portal. Pages other than home load on demand (route-level
 * code splitting); paths of features not built yet fall through to the not-found screen.
 */
export const routes: RouteObject[] = [
  {
    element: <PublicLayout />,
    // Shown while a lazily loaded page arrives on first load.
    hydrateFallbackElement: <PulsingLogo />,
    children: [
      { path: paths.home, element: <HomePage /> },
      {
        path: paths.howToPlay,
        lazy: async () => ({ Component: (await import('../pages/HowToPlayPage.tsx')).HowToPlayPage }),
      },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];

export const createRouter = () => createBrowserRouter(routes);
