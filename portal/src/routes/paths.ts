/**
 * The route table of the spec (core-app section 2, commerce-and-content section 2).
 * Links use these constants; the router mounts each page as its feature lands.
 */
export const paths = {
  home: '/',
  login: '/login',
  signup: '/signup',
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
  awaitingVerification: '/awaiting-verification',
  features: '/features',
  howToPlay: '/how-to-play',
  pricing: '/pricing',
  privacyPolicy: '/privacy-policy',
  termsOfService: '/terms-of-service',
  contact: '/contact',
  security: '/security',
  securityPolicy: '/security-policy',
  hallOfFame: '/security/hall-of-fame',
  careers: '/careers',
  careerJob: (slug: string) => `/careers/jobs/${encodeURIComponent(slug)}`,
  /** The route of a job's page (`careerJob` makes its addresses). */
  careerJobPattern: '/careers/jobs/:slug',
  // Signed in.
  dashboard: '/dashboard',
  attack: '/attack',
  box: '/box',
  chats: '/chats',
  history: '/history',
  leaderboard: '/leaderboard',
  settings: '/settings',
  logs: '/logs',
  plans: '/plans',
  checkoutPaddle: '/checkout/paddle',
  redeem: '/redeem',
  /** The player's ledger: where their credits went (issue 18). */
  credits: '/credits',
} as const;

/** Public routes of the spec: reachable without signing in. */
export const publicPaths = [
  paths.home,
  paths.login,
  paths.signup,
  paths.forgotPassword,
  paths.resetPassword,
  paths.awaitingVerification,
  paths.features,
  paths.howToPlay,
  paths.pricing,
  paths.privacyPolicy,
  paths.termsOfService,
  paths.contact,
  paths.security,
  paths.securityPolicy,
  paths.hallOfFame,
  paths.careers,
  paths.careerJobPattern,
] as const;

/** Signed-in routes of the spec: they live inside the authenticated layout. */
export const authenticatedPaths = [
  paths.dashboard,
  paths.attack,
  paths.box,
  paths.chats,
  paths.history,
  paths.leaderboard,
  paths.settings,
  paths.logs,
  paths.plans,
  paths.checkoutPaddle,
  paths.redeem,
  paths.credits,
] as const;
