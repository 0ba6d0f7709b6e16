/**
 * A request that got an answer with an error status. `serverMessage` is the `message` of the error body, if
 * any; `retryAfterSeconds` its Retry-After (429, 503), if any.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly serverMessage: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, serverMessage: string | undefined, retryAfterSeconds?: number) {
    super(serverMessage ?? `Request failed with status ${status}`);
    this.status = status;
    this.serverMessage = serverMessage;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Retry-After in seconds: a number of seconds or an HTTP date (RFC 9110); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The server's message of a failed call, when the call got an answer that had one. */
export function serverMessageOf(error: unknown): string | undefined {
  return error instanceof ApiError ? error.serverMessage : undefined;
}

/**
 * The server refused the credentials (401). Only this answer to a refresh ends the session: a 429, a 5xx or
 * a request that got no answer says nothing about the session, which stays.
 */
export function isUnauthorized(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}
