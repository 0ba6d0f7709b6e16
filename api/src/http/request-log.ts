import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../logger.ts';

/**
 * Gives every request an id (echoed as X-Request-Id) and logs one line when it ends:
 * method, path (never the query string, which may carry tokens), status, duration.
 * Lighter than pino-http: no child logger per request (see docs/benchmarks.md).
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const id = randomUUID();
    res.setHeader('X-Request-Id', id);
    res.locals.requestId = id;
    const started = performance.now();
    res.once('finish', () => {
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      logger[level](
        {
          reqId: id,
          method: req.method,
          path: req.originalUrl.split('?', 1)[0],
          status,
          ms: Math.round((performance.now() - started) * 10) / 10,
        },
        'Request completed',
      );
    });
    next();
  };
}
