import compression from 'compression';
import type { Request, RequestHandler, Response } from 'express';
import { API_BASE } from '../contracts/index.ts';

/** Answers smaller than this go out as they are: compressing them saves less than it costs. */
export const COMPRESS_FROM_BYTES = 1024;

/** Sign-in, sign-up, refresh, logout and social sign-in: the answers that carry tokens. */
const AUTH_PATHS = `${API_BASE}/auth/`;

/**
 * Compresses API answers of `COMPRESS_FROM_BYTES` and more for browsers that accept it (brotli at quality 4,
 * else gzip; the `compression` middleware negotiates and adds `Vary: Accept-Encoding`). The portal's
 * static files are compressed at build time instead (portal/static.ts), and Socket.IO never passes through
 * Express.
 *
 * Left out:
 * - Server-Sent Events (`text/event-stream`): a compressor holds back what it has not flushed, so events
 *   would arrive late and in bursts.
 * - The auth endpoints, whose answers carry tokens (BREACH: the compressed length of an answer that mixes a
 *   secret with text an attacker chose tells the attacker about the secret). Other API answers are only
 *   sent for a bearer token, which a page on another site cannot make the browser send, so an attacker
 *   cannot have a victim's browser ask for them over and over with reflected guesses (docs/architecture.md).
 */
export function apiCompression(): RequestHandler {
  return compression({ threshold: COMPRESS_FROM_BYTES, filter: shouldCompress });
}

function shouldCompress(req: Request, res: Response): boolean {
  // Express matches paths whatever their case (/API/V1/Auth/refresh is the refresh): so does this.
  if (req.originalUrl.toLowerCase().startsWith(AUTH_PATHS)) return false;
  const type = res.getHeader('Content-Type');
  if (typeof type === 'string' && type.startsWith('text/event-stream')) return false;
  return compression.filter(req, res);
}
