import express, { type Express } from 'express';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { Config } from './config.ts';
import { requireAuth } from './auth/middleware.ts';
import { authRoutes } from './auth/routes.ts';
import type { AuthService } from './auth/service.ts';
import { socialRoutes } from './auth/social.ts';
import type { PassportStatic } from 'passport';
import { API_BASE, type SocialProvider } from './contracts/index.ts';
import type { Orm } from './db/orm.ts';
import { healthRoutes } from './health/routes.ts';
import { apiCompression } from './http/compression.ts';
import { HttpError, apiNotFound, errorHandler } from './http/errors.ts';
import { refuseNul } from './http/nul.ts';
import { buildOpenApiDocument } from './http/openapi.ts';
import { requestLog } from './http/request-log.ts';
import {
  PADDLE_CHECKOUT_PATH,
  helmetOptions,
  paddleCheckoutDirectives,
  portalDirectives,
} from './http/content-security.ts';
import { securityHeaders } from './http/security-headers.ts';
import { allowedMethods, type ApiRouter } from './http/route.ts';
import type { Logger } from './logger.ts';
import { PortalPages } from './portal/pages.ts';
import { seoFiles } from './portal/seo.ts';
import { portalStatic } from './portal/static.ts';
import type { UserService } from './users/service.ts';
import { userRoutes } from './users/routes.ts';
import { boxRoutes } from './boxes/routes.ts';
import { vpnRoutes } from './vpn/routes.ts';
import type { VpnService } from './vpn/service.ts';
import type { SnapshotService } from './boxes/snapshots.ts';
import { attackRoutes } from './attacks/routes.ts';
import type { AttackService } from './attacks/service.ts';
import type { BoxService } from './boxes/service.ts';
import type { Grid } from './grid/grid.ts';
import { gridRoutes } from './grid/routes.ts';
import { chatRoutes } from './chat/routes.ts';
import type { ChatService } from './chat/service.ts';
import { leaderboardRoutes } from './leaderboard/routes.ts';
import { LeaderboardService } from './leaderboard/service.ts';
import { creditRoutes } from './credits/routes.ts';
import { signupGift } from './credits/signup-gift.ts';
import type { GiftService } from './credits/gifts.ts';
import { CreditStatement } from './credits/statement.ts';
import { packageInfo } from './version.ts';
import type { PaymentService } from './payments/service.ts';
import { paymentWebhookRoutes, subscriptionRoutes } from './payments/routes.ts';
import { onboardingRoutes } from './onboarding/routes.ts';
import { OnboardingService } from './onboarding/service.ts';
import { securityFiles, securityRoutes } from './security/routes.ts';
import type { SecurityKey } from './security/pgp-key.ts';
import type { VulnerabilityReports } from './security/reports.ts';
import type { SecurityTxt } from './security/security-txt.ts';
import { careersRoutes } from './careers/routes.ts';
import type { CareersService } from './careers/service.ts';
import { contactRoutes } from './contact/routes.ts';
import type { ContactService } from './contact/service.ts';

export interface AppDeps {
  config: Config;
  logger: Logger;
  orm: Orm;
  auth: AuthService;
  users: UserService;
  boxes: BoxService;
  vpn: VpnService;
  snapshots: SnapshotService;
  attacks: AttackService;
  grid: Grid;
  chat: ChatService;
  payments: PaymentService;
  gifts: GiftService;
  social: { passport: PassportStatic; enabled: SocialProvider[] };
  /** Security disclosure: reports, the hall of fame, /pgp-key.asc and security.txt. */
  security: { reports: VulnerabilityReports; key: SecurityKey; securityTxt: SecurityTxt };
  careers: CareersService;
  contact: ContactService;
}

/** Builds the Express application: security headers, logging, routes, portal, errors. */
export function createApp({
  config,
  logger,
  orm,
  auth,
  users,
  boxes,
  vpn,
  snapshots,
  attacks,
  grid,
  chat,
  payments,
  gifts,
  social,
  security,
  contact,
  careers,
}: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // Client addresses (throttles, session records) come from X-Forwarded-For only behind trusted proxies.
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  // A hash of every JSON answer costs a fifth of the throughput and buys nothing for an
  // API whose answers change with each call; static files keep their own ETags.
  app.set('etag', false);

  const secure = config.publicUrl.startsWith('https://');
  // Probes first: kubelets and load balancers call them every few seconds; they need no
  // browser security headers and no access log line (docs/benchmarks.md).
  const health = healthRoutes({ orm });
  app.use(health.router);

  app.use(securityHeaders(helmetOptions(portalDirectives(secure), secure)));
  // Paddle.js may run on the document of the Paddle checkout page alone (a navigation inside the portal
  // keeps the policy its document came with: the page reloads itself when reached that way). Paddle's
  // checkout may open a window (PayPal) that reports back to its opener: that needs popups kept in reach.
  app.get(
    PADDLE_CHECKOUT_PATH,
    securityHeaders(helmetOptions(paddleCheckoutDirectives(secure), secure, 'same-origin-allow-popups')),
  );
  app.use(requestLog(logger));
  // Feature routers (accounts, boxes, ...) are listed here; each is mounted under /api/v1
  // and documented in the OpenAPI document.
  const apiRouters: ApiRouter[] = [
    authRoutes({ auth, secureCookies: secure, enabledProviders: () => social.enabled }),
    userRoutes({ users, requireAuth: requireAuth(auth) }),
    onboardingRoutes({
      onboarding: new OnboardingService(orm, { seesSsh: () => boxes.seesOwnerSsh }),
      requireAuth: requireAuth(auth),
    }),
    boxRoutes({ boxes, snapshots, requireAuth: requireAuth(auth) }),
    vpnRoutes({ vpn, requireAuth: requireAuth(auth) }),
    // Before attackRoutes: /attack/queue/* and /attack/target-info/* are not box ids.
    gridRoutes({ grid, requireAuth: requireAuth(auth) }),
    attackRoutes({ attacks, requireAuth: requireAuth(auth) }),
    chatRoutes({ chat, requireAuth: requireAuth(auth) }),
    leaderboardRoutes({ leaderboard: new LeaderboardService(orm), requireAuth: requireAuth(auth) }),
    subscriptionRoutes({ payments, requireAuth: requireAuth(auth) }),
    creditRoutes({ gifts, statement: new CreditStatement(orm), requireAuth: requireAuth(auth) }),
    securityRoutes({ reports: security.reports }),
    careersRoutes({ careers }),
    contactRoutes({ contact }),
  ];
  // Payment providers sign the exact bytes of their webhooks: these read the body raw, before the JSON parser.
  const webhooks = paymentWebhookRoutes({ payments });
  // OPTIONS and methods a known path does not serve (405 with Allow, not 404), before any route
  // and any body parser (a method no path serves answers 405 whatever its body).
  app.use(
    allowedMethods([
      ...health.routes(),
      { method: 'get', path: `${API_BASE}/openapi.json` },
      ...[webhooks, ...apiRouters].flatMap((r) => r.routes(API_BASE)),
    ]),
  );
  app.use(API_BASE, webhooks.router);
  app.use(express.json({ limit: '100kb' }));
  app.use(refuseNul);
  // Answers of 1 kB and more, negotiated (not the auth endpoints' nor event streams: http/compression.ts).
  app.use('/api', apiCompression());

  const openApiDocument = buildOpenApiDocument({
    version: packageInfo.version,
    serverUrl: config.publicUrl,
    paths: mergePaths([health.paths(), ...[webhooks, ...apiRouters].map((r) => r.paths(API_BASE))]),
  });
  const openApiJson = JSON.stringify(openApiDocument);
  app.get(`${API_BASE}/openapi.json`, (_req, res) => {
    res.type('application/json').send(openApiJson);
  });
  // API answers (tokens, account data) are never stored by browsers or proxies.
  app.use('/api', (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  for (const router of apiRouters) app.use(API_BASE, router.router);
  // Browser redirects of social sign-in (not JSON calls: not in the OpenAPI document).
  app.use(
    API_BASE,
    socialRoutes({
      ...social,
      orm,
      auth,
      logger,
      secureCookies: secure,
      welcome: signupGift(config.startingFreeCreditsCents),
    }),
  );
  // Box agents report to an application of their own on an address only boxes reach
  // (attacks/agent-app.ts): never on the public port.
  app.use(['/api', '/internal'], apiNotFound);
  // Files at the site's root that the portal's fallback (index.html) must not answer.
  app.use(securityFiles(security));

  // A job's page has the job's title and description in its head, for link previews; a closed job's is a 404.
  const jobPage = {
    pattern: '/careers/jobs/:slug',
    head: async (slug: string) => {
      // A job's slug is lowercase words and dashes (the jobs table's check): anything else is no job.
      if (!/^[a-z0-9-]{1,80}$/.test(slug)) return null;
      const job = await careers.bySlug(slug).catch((err: unknown) => {
        if (err instanceof HttpError && err.statusCode === 404) return null;
        throw err;
      });
      return job && { title: job.title, description: job.shortDescription };
    },
  };
  const pages = PortalPages.load(config.portalDist, config.publicUrl, [jobPage]);
  app.use(
    seoFiles({
      publicUrl: config.publicUrl,
      pages: () => pages?.paths ?? [],
      more: async () =>
        (await careers.list({})).jobs.map((job) => ({
          path: `/careers/jobs/${encodeURIComponent(job.slug)}`,
          lastModified: new Date(job.publishedAt),
        })),
      logger,
    }),
  );
  const portal = portalStatic(config.portalDist, pages);
  if (portal) app.use(portal);
  else
    logger.warn({ dir: config.portalDist }, 'Portal is not built; serving the API only (run `make build`)');

  app.use(apiNotFound);
  app.use(errorHandler(logger));
  return app;
}

function mergePaths(all: ZodOpenApiPathsObject[]): ZodOpenApiPathsObject {
  return Object.assign({}, ...all);
}
