import { timingSafeEqual, createHash } from 'node:crypto';
import express, { type Express } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';
import {
  checkOutcomeSchema,
  checksPollSchema,
  type CheckJob,
  type CheckOutcome,
} from '@exploit-grid/operator/kubernetes';
import { apiNotFound, errorHandler } from '../../http/errors.ts';
import { refuseNul } from '../../http/nul.ts';
import type { Logger } from '../../logger.ts';

/** Hook calls all VPN servers may make per second (a connect storm after a restart stays well under). */
const HOOKS_PER_SECOND = 500;

export const hookBodySchema = z.strictObject({
  protocol: z.enum(['udp', 'tcp']),
  /** The client certificate's common name: the player's user id. */
  commonName: z.uuid(),
  vpnAddress: z.ipv4(),
  server: z.string().min(1).max(253),
  /**
   * Where the client connects from, as the server sees it (OpenVPN's `untrusted_ip`): shown to the player
   * alone. Optional: servers of an older pool do not send it; one that is no address is dropped by the
   * runtime, never a reason to refuse the client.
   */
  realAddress: z.string().max(64).optional(),
});
export type HookBody = z.infer<typeof hookBodySchema>;

/** A server's whole list of sessions, sent every few seconds (so an API that restarted learns them). */
export const sessionsBodySchema = z.strictObject({
  protocol: z.enum(['udp', 'tcp']),
  server: z.string().min(1).max(253),
  sessions: z.array(z.strictObject({ commonName: z.uuid(), vpnAddress: z.ipv4() })).max(65_000),
});
export type SessionsBody = z.infer<typeof sessionsBodySchema>;

const port = z.number().int().min(1).max(65535);
/** How long ago, in seconds as the router's kernel counts them. */
const seconds = z.number().int().min(0).max(86_400);

/**
 * A server's witnessed flows (the attack windows' TCP flows it carried), its whole list every
 * 2 seconds (docs/detection.md).
 */
export const flowsBodySchema = z.strictObject({
  server: z.string().min(1).max(253),
  /** The server's arena address ('' when it has none). */
  router: z.union([z.ipv4(), z.literal('')]),
  flows: z
    .array(
      z.strictObject({
        client: z.ipv4(),
        clientPort: port,
        box: z.ipv4(),
        boxPort: port,
        openedSecondsAgo: seconds,
        idleSeconds: seconds.nullable(),
      }),
    )
    .max(65_536),
});
export type FlowsBody = z.infer<typeof flowsBodySchema>;

export interface HookHandlers {
  /** The secret the pool's servers present (from its PKI Secret), or null while unknown. */
  token(): string | null;
  connect(body: HookBody): Promise<boolean>;
  disconnect(body: HookBody): Promise<void>;
  /** The sessions a server holds now: those the API missed are added, those gone are dropped. */
  sessions(body: SessionsBody): Promise<void>;
  /** The flows a server witnessed. */
  flows(body: FlowsBody): void;
  /** The service checks a server is to make (a long poll; `signal` aborts when the server hangs up). */
  checks(server: string, signal: AbortSignal): Promise<CheckJob[]>;
  /** What came of one; false when no such check waits for that server. */
  checkResult(outcome: CheckOutcome): boolean;
}

/**
 * The OpenVPN servers' hooks on the API's internal Service: `POST /internal/vpn/connect` (200
 * `{allow: true}` or 403 `{allow: false}`), `/internal/vpn/disconnect` (204) and
 * `/internal/vpn/sessions` (204: a server's whole list, every 16 s) and `/internal/vpn/flows`
 * (204: its witnessed flows, every 2 s), `/internal/vpn/checks/next` (a long poll: the service checks the
 * server is to make) and `/internal/vpn/checks/result` (204, or 404 for a check nobody waits for), each with
 * the pool's hook token as a bearer token (compared in constant time) and a validated body.
 */
export function createHooksApp(
  handlers: HookHandlers,
  logger: Logger,
  options: { perSecond?: number } = {},
): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The token first: boxes reach this port too (the routers forward their agents' port 80 to
  // it), so calls without the token must not use up the servers' rate.
  app.use((req, res, next) => {
    const expected = handlers.token();
    const given = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
    const digest = (value: string) => createHash('sha256').update(value).digest();
    if (!expected || !timingSafeEqual(digest(given), digest(expected))) {
      res.status(401).json({ statusCode: 401, message: 'Unknown hook token.', error: 'Unauthorized' });
      return;
    }
    next();
  });
  // The service checks before the hooks' rate: a check's poll and outcome must not be refused for connects
  // (a refused outcome would be a check not made, nobody's fault). The servers are the platform's own.
  app.post('/internal/vpn/checks/next', express.json({ limit: '2kb' }), refuseNul, (req, res, next) => {
    const parsed = checksPollSchema.safeParse(req.body);
    if (!parsed.success)
      return void res
        .status(400)
        .json({ statusCode: 400, message: 'Invalid checks poll.', error: 'Bad Request' });
    const hungUp = new AbortController();
    res.on('close', () => hungUp.abort());
    handlers.checks(parsed.data.server, hungUp.signal).then((jobs) => {
      if (!res.writableEnded && !res.destroyed) res.json({ jobs });
    }, next);
  });
  // An HTTP answer is cut at 256 KiB (in JSON, up to six bytes a character).
  app.post('/internal/vpn/checks/result', express.json({ limit: '2mb' }), refuseNul, (req, res) => {
    const parsed = checkOutcomeSchema.safeParse(req.body);
    if (!parsed.success)
      return void res
        .status(400)
        .json({ statusCode: 400, message: 'Invalid check result.', error: 'Bad Request' });
    if (!handlers.checkResult(parsed.data))
      return void res
        .status(404)
        .json({ statusCode: 404, message: 'No such check waits for this server.', error: 'Not Found' });
    res.status(204).end();
  });
  const limiter = new RateLimiterMemory({ points: options.perSecond ?? HOOKS_PER_SECOND, duration: 1 });
  app.use((_req, res, next) => {
    limiter.consume('all').then(
      () => next(),
      (rejection: unknown) => {
        if (!(rejection instanceof RateLimiterRes)) return next(rejection);
        res.setHeader('Retry-After', String(Math.ceil(rejection.msBeforeNext / 1000)));
        res
          .status(429)
          .json({ statusCode: 429, message: 'Too many hook calls.', error: 'Too Many Requests' });
      },
    );
  });
  // A server's session list: at most 65,000 sessions of about 80 bytes.
  app.post('/internal/vpn/sessions', express.json({ limit: '6mb' }), refuseNul, (req, res, next) => {
    const parsed = sessionsBodySchema.safeParse(req.body);
    if (!parsed.success)
      return void res
        .status(400)
        .json({ statusCode: 400, message: 'Invalid sessions report.', error: 'Bad Request' });
    handlers.sessions(parsed.data).then(() => res.status(204).end(), next);
  });
  // At most 65,536 flows of about 130 bytes.
  app.post('/internal/vpn/flows', express.json({ limit: '10mb' }), refuseNul, (req, res) => {
    const parsed = flowsBodySchema.safeParse(req.body);
    if (!parsed.success)
      return void res
        .status(400)
        .json({ statusCode: 400, message: 'Invalid flows report.', error: 'Bad Request' });
    handlers.flows(parsed.data);
    res.status(204).end();
  });
  app.use(express.json({ limit: '2kb' }));
  app.use(refuseNul);
  const parse = (body: unknown) => {
    const parsed = hookBodySchema.safeParse(body);
    return parsed.success ? parsed.data : null;
  };
  app.post('/internal/vpn/connect', (req, res, next) => {
    const body = parse(req.body);
    if (!body)
      return void res
        .status(400)
        .json({ statusCode: 400, message: 'Invalid hook body.', error: 'Bad Request' });
    handlers.connect(body).then((allow) => {
      logger.info(
        { userId: body.commonName, protocol: body.protocol, server: body.server, allow },
        'VPN client connecting',
      );
      res.status(allow ? 200 : 403).json({ allow });
    }, next);
  });
  app.post('/internal/vpn/disconnect', (req, res, next) => {
    const body = parse(req.body);
    if (!body)
      return void res
        .status(400)
        .json({ statusCode: 400, message: 'Invalid hook body.', error: 'Bad Request' });
    handlers.disconnect(body).then(() => res.status(204).end(), next);
  });
  app.use(apiNotFound);
  app.use(errorHandler(logger));
  return app;
}
