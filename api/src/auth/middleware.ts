import type { RequestHandler, Response } from 'express';
import { ACCOUNT_BANNED } from '../contracts/index.ts';
import { HttpError, forbidden } from '../http/errors.ts';
import type { AccessClaims } from './jwt.ts';
import type { AuthService } from './service.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses the request unless it carries a valid bearer token of a live session. Calls that change something
 * (any method but GET, HEAD and OPTIONS) also count against the caller's per-user limit (429 past it), and
 * are refused to a banned account (403) but for its own sign-out and account calls.
 */
export function requireAuth(auth: AuthService): RequestHandler {
  return (req, res, next) => {
    const header = req.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (!token) {
      next(unauthenticated());
      return;
    }
    auth.authenticate(token).then((claims) => {
      if (!claims) {
        next(unauthenticated());
        return;
      }
      res.locals.auth = { userId: claims.userId, sessionId: claims.sessionId } satisfies AccessClaims;
      if (SAFE_METHODS.has(req.method)) next();
      // A banned player reads, and may sign out; nothing else.
      else if (claims.banned && !req.originalUrl.startsWith('/api/v1/auth/'))
        next(forbidden(ACCOUNT_BANNED, 'ACCOUNT_BANNED'));
      else auth.consumeCall(claims.userId).then(() => next(), next);
    }, next);
  };
}

/** The caller of a route behind requireAuth. */
export function caller(res: Response): AccessClaims {
  const claims = res.locals.auth as AccessClaims | undefined;
  if (!claims) throw new Error('route is missing requireAuth');
  return claims;
}

const unauthenticated = () =>
  new HttpError(401, 'Unauthorized', { code: 'UNAUTHENTICATED', headers: { 'WWW-Authenticate': 'Bearer' } });
