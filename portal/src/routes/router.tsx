import { createBrowserRouter, type RouteObject } from 'react-router';
import { PulsingLogo } from '../components/PulsingLogo.tsx';
import { PublicLayout } from '../layouts/PublicLayout.tsx';
import { HomePage } from '../pages/HomePage.tsx';
import { NotFoundPage } from '../pages/NotFoundPage.tsx';
import { loadPlansStore, loadSessionStores, loadSignedInStores } from '../stores/RootStore.ts';
import { authenticatedPaths, paths } from './paths.ts';

/** Signed-in pages built so far; the other signed-in paths show the not-found content inside the layout. */
const builtAuthenticatedPaths: ReadonlySet<string> = new Set([
  paths.dashboard,
  paths.box,
  paths.history,
  paths.leaderboard,
  paths.attack,
  paths.chats,
  paths.plans,
  paths.redeem,
  paths.checkoutPaddle,
  paths.credits,
]);

/** A page that uses the session's stores (auth): their code loads with it (stores/RootStore.ts). */
async function withSession<T>(page: Promise<T>): Promise<T> {
  const [module] = await Promise.all([page, loadSessionStores()]);
  return module;
}

/**
 * Route objects of the portal. Pages other than home load on demand (route-level code splitting), and so
 * does the signed-in layout. Paths of features not built yet fall through to the not-found screen.
 */
export const routes: RouteObject[] = [
  {
    element: <PublicLayout />,
    // Shown while a lazily loaded page arrives on first load.
    hydrateFallbackElement: <PulsingLogo />,
    children: [
      { path: paths.home, element: <HomePage /> },
      {
        path: paths.features,
        lazy: async () => ({ Component: (await import('../pages/FeaturesPage.tsx')).FeaturesPage }),
      },
      {
        path: paths.howToPlay,
        lazy: async () => ({ Component: (await import('../pages/HowToPlayPage.tsx')).HowToPlayPage }),
      },
      {
        path: paths.privacyPolicy,
        lazy: async () => ({ Component: (await import('../pages/PrivacyPolicyPage.tsx')).PrivacyPolicyPage }),
      },
      {
        path: paths.termsOfService,
        lazy: async () => ({
          Component: (await import('../pages/TermsOfServicePage.tsx')).TermsOfServicePage,
        }),
      },
      {
        path: paths.security,
        lazy: async () => ({ Component: (await import('../pages/SecurityPage.tsx')).SecurityPage }),
      },
      {
        path: paths.hallOfFame,
        lazy: async () => ({ Component: (await import('../pages/HallOfFamePage.tsx')).HallOfFamePage }),
      },
      {
        path: paths.securityPolicy,
        lazy: async () => ({
          Component: (await import('../pages/SecurityPolicyPage.tsx')).SecurityPolicyPage,
        }),
      },
      {
        path: paths.contact,
        lazy: async () => ({ Component: (await import('../pages/ContactPage.tsx')).ContactPage }),
      },
      {
        path: paths.careers,
        lazy: async () => ({ Component: (await import('../pages/CareersPage.tsx')).CareersPage }),
      },
      {
        path: paths.careerJobPattern,
        lazy: async () => ({ Component: (await import('../pages/CareerJobPage.tsx')).CareerJobPage }),
      },
      {
        path: paths.login,
        lazy: async () => ({
          Component: (await withSession(import('../pages/auth/LoginPage.tsx'))).LoginPage,
        }),
      },
      {
        path: paths.signup,
        lazy: async () => ({
          Component: (await withSession(import('../pages/auth/SignupPage.tsx'))).SignupPage,
        }),
      },
      {
        path: paths.forgotPassword,
        lazy: async () => ({
          Component: (await withSession(import('../pages/auth/ForgotPasswordPage.tsx'))).ForgotPasswordPage,
        }),
      },
      {
        path: paths.resetPassword,
        lazy: async () => ({
          Component: (await withSession(import('../pages/auth/ResetPasswordPage.tsx'))).ResetPasswordPage,
        }),
      },
      {
        path: paths.pricing,
        lazy: async () => {
          const [{ PricingPage }] = await Promise.all([import('../pages/PricingPage.tsx'), loadPlansStore()]);
          return { Component: PricingPage };
        },
      },
      {
        path: paths.awaitingVerification,
        lazy: async () => ({
          Component: (await withSession(import('../pages/auth/AwaitingVerificationPage.tsx')))
            .AwaitingVerificationPage,
        }),
      },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
  {
    // The signed-in stores (and socket.io-client) come with the layout, never with a public page.
    lazy: async () => {
      const [{ AppLayout }] = await Promise.all([import('../layouts/AppLayout.tsx'), loadSignedInStores()]);
      return { Component: AppLayout };
    },
    hydrateFallbackElement: <PulsingLogo />,
    children: [
      {
        path: paths.dashboard,
        lazy: async () => ({ Component: (await import('../pages/DashboardPage.tsx')).DashboardPage }),
      },
      {
        path: paths.box,
        lazy: async () => ({ Component: (await import('../pages/BoxPage.tsx')).BoxPage }),
      },
      {
        path: paths.attack,
        lazy: async () => ({ Component: (await import('../pages/AttackPage.tsx')).AttackPage }),
      },
      {
        path: paths.chats,
        lazy: async () => ({ Component: (await import('../pages/ChatsPage.tsx')).ChatsPage }),
      },
      {
        path: paths.history,
        lazy: async () => ({ Component: (await import('../pages/HistoryPage.tsx')).HistoryPage }),
      },
      {
        path: paths.leaderboard,
        lazy: async () => ({ Component: (await import('../pages/LeaderboardPage.tsx')).LeaderboardPage }),
      },
      {
        path: paths.plans,
        lazy: async () => ({ Component: (await import('../pages/PlansPage.tsx')).PlansPage }),
      },
      {
        path: paths.redeem,
        lazy: async () => ({ Component: (await import('../pages/RedeemPage.tsx')).RedeemPage }),
      },
      {
        path: paths.credits,
        lazy: async () => ({ Component: (await import('../pages/CreditHistoryPage.tsx')).CreditHistoryPage }),
      },
      {
        // Paddle.js comes with this page's chunk only.
        path: paths.checkoutPaddle,
        lazy: async () => ({
          Component: (await import('../pages/CheckoutPaddlePage.tsx')).CheckoutPaddlePage,
        }),
      },
      ...authenticatedPaths
        .filter((path) => !builtAuthenticatedPaths.has(path))
        .map((path) => ({ path: `${path}/*`, element: <NotFoundPage inLayout /> })),
    ],
  },
];

export const createRouter = () => createBrowserRouter(routes);
