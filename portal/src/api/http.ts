import { API_BASE } from '@exploit-grid/api/contracts/constants';
import { ApiError, isUnauthorized, parseRetryAfter } from './ApiError.ts';

/** What a client needs from the signed-in session; the AuthStore provides it, shared by every client. */
export interface Session {
  /** The bearer token to send, if any. */
  accessToken(): string | null;
  /** A refresh under way, which new requests wait for instead of sending a token about to be replaced. */
  refreshInFlight(): Promise<unknown> | null;
  /**
   * Renews the access token; concurrent callers share one attempt (across tabs too, where the browser allows).
   * Rejects when the token could not be renewed: with an ApiError 401 when the server refused the session,
   * with another error when the failure was transient.
   */
  refresh(): Promise<string>;
  /** The session is over (its refresh was refused with 401): remember where the user was, log out, go to /login. */
  expired(): void;
}

/**
 * Calls that never trigger a refresh on 401 (core-app section 8): the answers of login, signup and social
 * exchange are about the credentials sent, and refresh is the renewal itself.
 */
const NO_REFRESH_PATHS: ReadonlySet<string> = new Set(
  ['/auth/login', '/auth/signup', '/auth/refresh', '/auth/social/exchange'].map((path) => API_BASE + path),
);
/** The refresh itself never waits for the refresh in flight: it is that refresh. */
const REFRESH_URL = `${API_BASE}/auth/refresh`;

/** What reads an answer: a zod schema of the contracts, or a plain function's object where zod is not loaded. */
export interface Parser<T> {
  parse(data: unknown): T;
}

export type RequestOptions = {
  body?: unknown;
  /** Extra headers (rarely needed; JSON and the bearer token are set here). */
  headers?: Record<string, string>;
};

/**
 * JSON over fetch to one API base, same origin with credentials (the refresh cookie), bearer token from the
 * session. On 401 (except the calls above) it refreshes once and retries once; requests that get their 401
 * while a refresh is under way wait for that same refresh. A refresh refused with 401 ends the session; any
 * other refresh failure (429, 5xx, no answer) rejects the request with the refresh's error and keeps the
 * session. Requests that get no answer at all (network errors) reject with fetch's own error, unchanged.
 */
export class HttpClient {
  readonly baseUrl: string;
  private readonly session: Session;

  constructor(baseUrl: string, session: Session) {
    this.baseUrl = baseUrl;
    this.session = session;
  }

  get<T>(path: string, schema: Parser<T>): Promise<T> {
    return this.request('GET', path, schema);
  }

  post<T>(path: string, schema: Parser<T>, options?: RequestOptions): Promise<T> {
    return this.request('POST', path, schema, options);
  }

  /** A call whose answer carries nothing to read (204). */
  send(method: string, path: string, options?: RequestOptions): Promise<void> {
    return this.request(method, path, null, options);
  }

  async request<T>(method: string, path: string, schema: Parser<T>, options?: RequestOptions): Promise<T>;
  async request(method: string, path: string, schema: null, options?: RequestOptions): Promise<void>;
  async request<T>(
    method: string,
    path: string,
    schema: Parser<T> | null,
    options: RequestOptions = {},
  ): Promise<T | void> {
    const url = this.baseUrl + path;
    const waiting = url === REFRESH_URL ? null : this.session.refreshInFlight();
    if (waiting) await waiting.catch(() => undefined);

    let sentWith = this.session.accessToken();
    let response = await this.fetch(method, url, sentWith, options);
    if (response.status === 401 && !NO_REFRESH_PATHS.has(url)) {
      // Only renew the token this request was refused with: another request may have renewed it already.
      const current = this.session.accessToken();
      if (current === sentWith || current === null) {
        try {
          await this.session.refresh();
        } catch (error) {
          // A transient failure (throttled, server down, offline) is no verdict on the session: keep it.
          if (!isUnauthorized(error)) throw error;
          this.session.expired();
          throw await toApiError(response);
        }
      }
      sentWith = this.session.accessToken();
      response = await this.fetch(method, url, sentWith, options);
    }
    if (!response.ok) throw await toApiError(response);
    if (schema === null) return;
    return schema.parse(await response.json());
  }

  private fetch(
    method: string,
    url: string,
    token: string | null,
    options: RequestOptions,
  ): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    if (token) headers.Authorization = `Bearer ${token}`;
    const init: RequestInit = { method, headers, credentials: 'include' };
    if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(options.body);
    }
    // Looked up at call time so tests can stub the global.
    return globalThis.fetch(url, init);
  }
}

async function toApiError(response: Response): Promise<ApiError> {
  let message: string | undefined;
  try {
    const body: unknown = await response.json();
    // The contracts' error body (errorSchema): only its message is shown.
    if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string')
      message = body.message || undefined;
  } catch {
    // Not JSON: no server message to show.
  }
  return new ApiError(response.status, message, parseRetryAfter(response.headers.get('Retry-After')));
}
