import type { RequestHandler } from 'express';
import { badRequest } from './errors.ts';

/** What a client hears when its input holds a NUL character (PostgreSQL text cannot hold one). */
export const NUL_MESSAGE = 'Text must not contain NUL characters.';

/** Whether a value parsed from JSON (or a query string) holds a NUL character, in a string or a key. */
export function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (value === null || typeof value !== 'object' || depth > 64) return false;
  if (Array.isArray(value)) return value.some((item) => containsNul(item, depth + 1));
  for (const [key, item] of Object.entries(value))
    if (key.includes('\0') || containsNul(item, depth + 1)) return true;
  return false;
}

/**
 * Refuses a request whose body, query string or path holds a NUL character, before any route
 * sees it: no NUL reaches the database, and the client is told why (not a 500).
 */
export const refuseNul: RequestHandler = (req, _res, next) => {
  if (/\0|%00/i.test(req.path) || containsNul(req.query) || containsNul(req.body))
    next(badRequest(NUL_MESSAGE));
  else next();
};
