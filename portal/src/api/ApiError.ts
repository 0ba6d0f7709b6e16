/** A request that got an answer with an error status. `serverMessage` is the `message` of the error body, if any. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly serverMessage: string | undefined;

  constructor(status: number, serverMessage: string | undefined) {
    super(serverMessage ?? `Request failed with status ${status}`);
    this.status = status;
    this.serverMessage = serverMessage;
  }
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
