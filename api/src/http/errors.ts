import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../logger.ts';

/**
 * An error a person can act on. `message` is shown by the portal as is; `code`, when
 * set, is a stable machine-readable reason (for example EMAIL_NOT_VERIFIED).
 */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly statusCode: number;
  readonly code: string | undefined;
  readonly headers: Record<string, string>;

  constructor(
    statusCode: number,
    message: string,
    options: { code?: string; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.statusCode = statusCode;
    this.code = options.code;
    this.headers = options.headers ?? {};
  }
}

export const badRequest = (message: string, code?: string) => new HttpError(400, message, { code });
export const unauthorized = (message = 'Unauthorized', code?: string) =>
  new HttpError(401, message, { code });
export const forbidden = (message = 'Forbidden', code?: string) => new HttpError(403, message, { code });
export const notFound = (message = 'Not found') => new HttpError(404, message);
export const conflict = (message: string, code?: string) => new HttpError(409, message, { code });
export const tooManyRequests = (retryAfterSeconds: number, message = 'Too many requests. Try again later.') =>
  new HttpError(429, message, {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });
export const serviceUnavailable = (message: string) => new HttpError(503, message);

/** The body of every error answer: `{statusCode, message, error}` (DESIGN.md, Contracts). */
export function errorBody(statusCode: number, message: string) {
  return { statusCode, message, error: STATUS_CODES[statusCode] ?? 'Error' };
}

/** Answers unknown API paths with a JSON 404 instead of the portal's HTML. */
export const apiNotFound: RequestHandler = (req, _res, next) => {
  next(notFound(`No route for ${req.method} ${req.baseUrl}${req.path}`));
};

/** The one place where errors become HTTP answers. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    let status = 500;
    let message = 'Internal server error';
    let headers: Record<string, string> = {};
    if (err instanceof HttpError) {
      ({ statusCode: status, message, headers } = err);
    } else if (isClientHttpError(err)) {
      // http-errors raised by Express middleware: express.json() (malformed JSON, body
      // too large, bad charset) and express.static (missing asset). Their own messages
      // may carry internals (file paths), so only known types get a specific sentence.
      status = err.status;
      message = clientErrorMessages[err.type ?? ''] ?? STATUS_CODES[status] ?? 'Bad request';
    }
    if (status >= 500) {
      // The path only: query strings may carry tokens (verification links, OAuth codes).
      logger.error({ err, method: req.method, path: req.originalUrl.split('?', 1)[0] }, 'Request failed');
    }
    res.status(status).set(headers).json(errorBody(status, message));
  };
}

const clientErrorMessages: Record<string, string> = {
  'entity.parse.failed': 'Request body is not valid JSON.',
  'entity.too.large': 'Request body is too large.',
  'charset.unsupported': 'Request body charset is not supported; use UTF-8.',
  'encoding.unsupported': 'Request body encoding is not supported.',
};

function isClientHttpError(err: unknown): err is { status: number; type?: string } {
  return (
    typeof err === 'object' &&
    err !== null &&
    'status' in err &&
    typeof err.status === 'number' &&
    err.status >= 400 &&
    err.status < 500
  );
}
