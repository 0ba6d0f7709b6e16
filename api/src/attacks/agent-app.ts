import { createHash } from 'node:crypto';
import express, { type Express } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { refuseNul } from '../http/nul.ts';
import { apiNotFound, errorHandler } from '../http/errors.ts';
import type { Logger } from '../logger.ts';
import { agentRoutes } from './agent-routes.ts';
import type { AgentIngest } from './ingest.ts';

/** Reports a box may send per second (an agent sends a batch at most every 400 ms, more to catch up). */
const REPORTS_PER_SECOND = 20;
/**
 * Reports all boxes together may send per second. Boxes come through one NAT address, so a box
 * sending made-up secrets (each a database lookup) is held back by this cap, not by the one above.
 */
const ALL_REPORTS_PER_SECOND = 2000;

/**
 * The internal application box agents report to (`POST /internal/agent/report`), served apart
 * from the public one: only on the address boxes reach (the local runtime's transit link; a
 * cluster-internal Service on Kubernetes), never through the public port. Batches stay under
 * the JSON limit (1 MB; a heartbeat of 8,192 connections fits): the agent splits them. Each box is held to a request rate.
 */
export function createAgentApp(deps: { ingest: AgentIngest; logger: Logger }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const perBox = new RateLimiterMemory({ points: REPORTS_PER_SECOND, duration: 1 });
  const overall = new RateLimiterMemory({ points: ALL_REPORTS_PER_SECOND, duration: 1 });
  app.use((req, res, next) => {
    const key = createHash('sha256')
      .update(req.get('authorization') ?? '')
      .digest('hex');
    Promise.all([overall.consume('all'), perBox.consume(key)]).then(
      () => next(),
      (rejection: unknown) => {
        if (!(rejection instanceof RateLimiterRes)) return next(rejection);
        // The agent keeps what it could not send and tries again.
        res.setHeader('Retry-After', String(Math.ceil(rejection.msBeforeNext / 1000)));
        res.status(429).json({
          statusCode: 429,
          message: 'Too many reports; send them in larger batches.',
          error: 'Too Many Requests',
        });
      },
    );
  });
  app.use(express.json({ limit: '1mb' }));
  app.use(refuseNul);
  app.use('/internal', agentRoutes({ ingest: deps.ingest }).router);
  app.use(apiNotFound);
  app.use(errorHandler(deps.logger));
  return app;
}
