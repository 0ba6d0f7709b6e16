import type { RequestHandler, Response } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * helmet's headers, computed once. With static directives (no per-request nonce)
 * helmet sets the same values on every response through a dozen middleware calls;
 * we run it once at start, keep what it set and replay that in one call.
 */
export function securityHeaders(options: HelmetOptions): RequestHandler {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
  } as unknown as Response;
  let done = false;
  helmet(options)({} as never, recorder, () => (done = true));
  if (!done) throw new Error('helmet did not finish synchronously; options need per-request values');
  return (_req, res, next) => {
    res.setHeaders(headers);
    next();
  };
}
