import type { RequestHandler, Response } from 'express';
import { HttpError } from '../http/errors.ts';
import type { AccessClaims } from './jwt.ts';
import type { AuthService } from './service.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses the request unless it carries a valid bearer token of a live session. Calls that change something
 * (any method but GET, HEAD and OPTIONS) also count against the caller's per-user limit (429 past it).
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
      res.locals.auth = claims;
      if (SAFE_METHODS.has(req.method)) next();
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
