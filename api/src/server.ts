import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import type { Config } from './config.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded-postgres.ts';
import { openDatabase, type Orm } from './db/orm.ts';
import type { Logger } from './logger.ts';
import { RefereeKeeper } from './referee/keeper.ts';
import { ServiceChecks } from './attacks/service-checks.ts';
import { SnapshotService } from './boxes/snapshots.ts';
import type { BoxOrchestrator } from './boxes/orchestrator.ts';
import pg from 'pg';
import { AccessTokens, loadJwtSecret } from './auth/jwt.ts';
import { warmPasswordStrength } from './auth/password-strength.ts';
import { PasswordHasher } from './auth/passwords.ts';
import { AuthService } from './auth/service.ts';
import { startHousekeeping } from './auth/housekeeping.ts';
import { configureSocial } from './auth/social.ts';
import { Throttle, type ThrottleLimit, type ThrottleName } from './auth/throttle.ts';
import { createMailer } from './mail/mailer.ts';
import { CareersService, startResumeSweep } from './careers/service.ts';
import { ContactService } from './contact/service.ts';
import {
  createRealtime,
  disconnectSessions,
  watchSessions,
  type Realtime,
  type TokenVerifier,
} from './realtime/io.ts';
import { PgListener } from './db/listen.ts';
import { BANS_CHANNEL, type BanNotice } from './staff/bans.ts';
import { UserService } from './users/service.ts';
import { BoxService } from './boxes/service.ts';
import { AttackService } from './attacks/service.ts';
import { createAgentApp } from './attacks/agent-app.ts';
import { AgentIngest } from './attacks/ingest.ts';
import { createOrchestrator } from './orchestrator-factory.ts';
import { Sealer } from './crypto/sealer.ts';
import proxyaddr from 'proxy-addr';
import { createGrid, type Grid } from './grid/grid.ts';
import { wireGrid } from './grid/socket.ts';
import { wireChat } from './chat/socket.ts';
import { ChatService } from './chat/service.ts';
import { EventDispatcher } from './realtime/dispatcher.ts';
import { wireBoxEvents } from './boxes/socket.ts';
import { Blocks } from './users/blocks.ts';
import { VpnService } from './vpn/service.ts';
import { BalanceEvents } from './credits/balance-events.ts';
import { PaymentService } from './payments/service.ts';
import { GiftService } from './credits/gifts.ts';
import { signupGift } from './credits/signup-gift.ts';
import { Notifications } from './notifications/notifications.ts';
import { SECURITY_KEY_PURPOSE, loadSecurityKey } from './security/pgp-key.ts';
import { VulnerabilityReports } from './security/reports.ts';
import { SecurityTxt } from './security/security-txt.ts';

export interface Platform {
  /** Where the server listens, e.g. http://127.0.0.1:3000. */
  url: string;
  orm: Orm;
  auth: AuthService;
  boxes: BoxService;
  vpn: VpnService;
  attacks: AttackService;
  grid: Grid;
  ingest: AgentIngest;
  realtime: Realtime;
  httpServer: HttpServer;
  /** Stops everything that was started, in reverse order. Safe to call twice. */
  close(): Promise<void>;
}

export interface PlatformOptions {
  /** Replaces the access-token check of sockets (tests of the handshake itself). */
  verifyToken?: TokenVerifier;
  throttleLimits?: Partial<Record<ThrottleName, ThrottleLimit>>;
  /** A box runtime made by the caller (tests); it is started here but not closed. */
  orchestrator?: BoxOrchestrator;
  /** How often the sessions of open sockets are re-checked (default 30 s; tests shorten it). */
  socketSessionCheckMs?: number;
}

/** Starts the database (embedded when DATABASE_URL is unset), the HTTP server and Socket.IO. */
export async function startPlatform(
  config: Config,
  logger: Logger,
  options: PlatformOptions = {},
): Promise<Platform> {
  const cleanups: { step: string; run: () => Promise<void> }[] = [];
  const onClose = (step: string, run: () => Promise<void>) => cleanups.push({ step, run });
  const runCleanups = async () => {
    for (const { step, run } of cleanups.reverse()) {
      // A step that hangs would hang the whole shutdown: say which one it is.
      const slow = setTimeout(() => logger.warn({ step }, 'Shutdown step is taking long'), 5000);
      try {
        await run();
      } catch (err) {
        logger.error({ err, step }, 'Shutdown step failed');
      } finally {
        clearTimeout(slow);
      }
    }
    cleanups.length = 0;
  };

  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const embedded: EmbeddedDatabase = await startEmbeddedPostgres({
        dataDir: config.dataDir,
        logger,
        avoidPorts: [config.port],
      });
      onClose('embedded PostgreSQL', () => embedded.stop());
      databaseUrl = embedded.url;
    }
    const orm = await openDatabase(databaseUrl, logger);
    onClose('database', () => orm.close());

    // A small pool of its own for throttling, so a burst of logins cannot starve the ORM's.
    const throttlePool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    onClose('throttle pool', () => throttlePool.end());

    const mailer = createMailer({
      smtpUrl: config.smtpUrl,
      from: config.mailFrom,
      dataDir: config.dataDir,
      logger,
    });
    onClose('mailer', async () => mailer.close());
    const serverSecret = await loadJwtSecret(config.jwtSecret, config.dataDir);
    const throttle = new Throttle(throttlePool, {
      userCalls: { points: config.userCallsPerMinute, durationSeconds: 60, blockSeconds: 0 },
      ...options.throttleLimits,
    });
    const auth = new AuthService({
      orm,
      logger,
      hasher: new PasswordHasher({ ...config.argon2, concurrency: config.hashConcurrency }),
      accessTokens: new AccessTokens(serverSecret, config.publicUrl),
      throttle,
      mailer,
      publicUrl: config.publicUrl,
      welcome: signupGift(config.startingFreeCreditsCents),
    });
    // The password dictionaries take about half a second to build: now, rather than in the first sign-up.
    warmPasswordStrength();
    const users = new UserService(orm);
    const stopHousekeeping = startHousekeeping(orm, logger);
    onClose('housekeeping', async () => stopHousekeeping());

    // Balance changes and notifications come from boxes, gifts and attacks alike; the Grid pushes them.
    const balances = new BalanceEvents();
    const notifications = new Notifications(orm);
    const orchestrator = options.orchestrator ?? (await createOrchestrator(config, logger));
    const sealer = new Sealer(serverSecret, 'box-secrets');
    const vpn = new VpnService({
      orm,
      runtime: orchestrator,
      sealer,
      logger,
      limitedPercent: config.vpn.limitedPercent,
    });
    const boxes = new BoxService({
      orm,
      orchestrator,
      vpn,
      sealer,
      logger,
      resources: config.boxes.resources,
      tickMs: config.boxes.tickMs,
      loadout: config.boxes.loadout,
      basicDailyLimitSeconds: config.boxes.basicDailyLimitSeconds,
      minimumChargeMinutes: config.boxes.minimumChargeMinutes,
      throttle,
      balances,
      notifications,
    });

    const attacks = new AttackService({
      orm,
      boxes,
      vpn,
      orchestrator,
      logger,
      timeLimitMs: config.attacks.timeLimitMs,
      mmrK: config.attacks.mmrK,
      footholdScore: config.attacks.footholdScore,
      tickMs: config.boxes.tickMs,
    });

    const ingest = new AgentIngest({
      orm,
      boxes,
      vpn,
      attacks,
      witness: orchestrator.witness ?? null,
      logger,
      silenceMs: config.attacks.agentSilenceMs,
    });

    const blocks = new Blocks(orm);
    const grid = createGrid({
      orm,
      boxes,
      vpn,
      attacks,
      logger,
      notifications,
      blocks,
      settings: config.grid,
    });
    const chat = new ChatService({ orm, blocks, notifications });
    // The ports a target popup shows are the box's services: a new box, a reset or a restore changes them.
    boxes.events.on('loadoutChanged', (userId) => grid.targetInfo.invalidate(userId));
    const gifts = new GiftService({ orm, throttle, logger, balances });
    const payments = new PaymentService({
      orm,
      logger,
      balances,
      throttle,
      settings: config.payments,
      publicUrl: config.publicUrl,
      basicDailyLimitMinutes: Math.round(config.boxes.basicDailyLimitSeconds / 60),
      boxMinimumChargeMinutes: config.boxes.minimumChargeMinutes,
    });

    const careers = new CareersService({ orm, mailer, throttle, careersEmail: config.careersEmail, logger });
    const stopResumeSweep = startResumeSweep(careers, logger);
    onClose('resume sweep', async () => stopResumeSweep());

    // Security disclosure: the platform's OpenPGP key (generated on the first start, its private half sealed
    // with the server secret, or SECURITY_PGP_KEY_FILE) signs security.txt.
    const securityKey = await loadSecurityKey({
      orm,
      sealer: new Sealer(serverSecret, SECURITY_KEY_PURPOSE),
      keyFile: config.securityPgpKeyFile,
      securityEmail: config.securityEmail,
      logger,
    });
    const security = {
      key: securityKey,
      securityTxt: new SecurityTxt({
        key: securityKey,
        publicUrl: config.publicUrl,
        securityEmail: config.securityEmail,
      }),
      reports: new VulnerabilityReports({
        orm,
        mailer,
        throttle,
        securityEmail: config.securityEmail,
        publicUrl: config.publicUrl,
        serverSecret,
        logger,
      }),
    };
    const social = await configureSocial(config, logger);
    const app = createApp({
      config,
      logger,
      orm,
      auth,
      users,
      boxes,
      vpn,
      snapshots: new SnapshotService({ orm, boxes, orchestrator, logger }),
      attacks,
      grid,
      chat,
      gifts,
      payments,
      social,
      careers,
      security,
      contact: new ContactService({ orm, mailer, throttle, staffEmail: config.staffEmail, logger }),
    });
    const httpServer = createServer(app);
    const verifyToken: TokenVerifier = options.verifyToken ?? ((token) => auth.authenticate(token));
    const realtime = createRealtime(httpServer, { verifyToken, logger });
    // Logout, password reset and token reuse end sessions at once: their sockets too.
    auth.events.on('sessionsRevoked', (ended) => disconnectSessions(realtime, ended));
    // Sessions that expire, end on another replica or whose account is banned: found by a re-check.
    // (A test's own token verifier names sessions that are not in the database: nothing to re-check.)
    if (!options.verifyToken) {
      const stopWatching = watchSessions(realtime, {
        liveSessions: (ids) => auth.liveSessions(ids),
        intervalMs: options.socketSessionCheckMs ?? 30_000,
        logger,
      });
      onClose('session watch', async () => stopWatching());
    }
    // Staff bans come from the staff CLI, another process: through the database, at once, to every replica.
    const bans = new PgListener({
      url: databaseUrl,
      logger,
      onReconnect: () =>
        void vpn
          .syncRevocations()
          .catch((err: unknown) => logger.error({ err }, 'Could not push VPN revocations')),
    }).on(BANS_CHANNEL, (payload) => {
      const notice = JSON.parse(payload) as BanNotice;
      if (notice.banned) disconnectSessions(realtime, { userId: notice.userId });
      boxes
        .banChanged(notice.userId)
        .catch((err: unknown) => logger.error({ err, userId: notice.userId }, 'Could not apply a ban'));
    });
    await bans.start();
    onClose('ban notices', () => bans.close());
    // Realtime by domain: the box's status on /vpn-status; the Grid's and the chat's events on /grid, through
    // one dispatcher (rate limits, validation, acknowledgements).
    wireBoxEvents(realtime.vpnStatus, boxes, vpn, logger);
    const trust = app.get('trust proxy fn') as Parameters<typeof proxyaddr>[1];
    const dispatcher = new EventDispatcher(realtime.grid, { logger });
    wireGrid({
      realtime,
      dispatcher,
      grid,
      attacks,
      chat,
      orm,
      logger,
      balances,
      clientAddress: (req) => proxyaddr(req, trust) || null,
    });
    wireChat({ ns: realtime.grid, dispatcher, chat, blocks, logger });

    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(config.port, config.host, () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
    onClose('HTTP and sockets', () => closeHttp(httpServer, realtime, config.shutdownTimeoutMs));

    // Host-side box machinery starts only once the port is ours: a refused start leaves nothing
    // behind. Boxes and VPN servers then outlive the API (close() only lets go of them).
    if (!options.orchestrator) onClose('orchestrator', () => orchestrator.close());
    await orchestrator.start();
    const stopServingAgents = await orchestrator.serveAgents(createAgentApp({ ingest, logger }));
    onClose('agents endpoint', stopServingAgents);
    await vpn.start();
    onClose('VPN access', async () => vpn.stop());
    await boxes.start();
    onClose('box loop', () => boxes.stop());
    await attacks.run();
    onClose('attacks', () => attacks.stop());
    const serviceChecks = new ServiceChecks({
      orm,
      orchestrator,
      attacks,
      logger,
      intervalMs: config.attacks.serviceCheckIntervalMs,
      graceMs: config.attacks.serviceGraceMs,
    });
    serviceChecks.start();
    onClose('service checks', () => serviceChecks.stop());
    // The runtime's own referee judges attacks where it has one (the local runtime, from the
    // host); otherwise the box agents' reports are judged.
    const referee = orchestrator.status().available ? (orchestrator.referee?.(attacks) ?? null) : null;
    if (referee) {
      // Started again after a failure, with growing waits: attacks are off only until it runs.
      const keeper = new RefereeKeeper(referee, attacks, { logger });
      onClose('referee', () => keeper.close());
      await keeper.start();
    } else {
      ingest.run(config.boxes.tickMs);
      onClose('agent reports', () => ingest.stop());
    }
    grid.start();
    onClose('grid', () => grid.stop());

    const { port } = httpServer.address() as AddressInfo;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host === '0.0.0.0' || host === '[::]' ? 'localhost' : host}:${port}`;

    let closing: Promise<void> | undefined;
    return {
      url,
      orm,
      auth,
      boxes,
      vpn,
      attacks,
      grid,
      ingest,
      realtime,
      httpServer,
      close: () => (closing ??= runCleanups()),
    };
  } catch (err) {
    await runCleanups();
    throw err;
  }
}

/** Stops accepting, disconnects sockets, lets requests in flight finish, then cuts what is left. */
async function closeHttp(httpServer: HttpServer, realtime: Realtime, timeoutMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
  realtime.io.disconnectSockets(true);
  await realtime.io.close().catch(() => undefined);
  httpServer.closeIdleConnections();
  const timer = setTimeout(() => httpServer.closeAllConnections(), timeoutMs);
  await closed;
  clearTimeout(timer);
}
