import {
  API_BASE,
  ONBOARDING_STEPS,
  type Box,
  type BoxRuntime,
  type Onboarding,
  type OnboardingStep,
  type VpnPoolStatus,
} from '@exploit-grid/api/contracts';
import { vi } from 'vitest';

export type FakeRequest = {
  method: string;
  /** Path under /api/v1 (`/auth/login`), or the full path for other bases (`/api/ai/v1/...`). */
  path: string;
  body: unknown;
  /** The Authorization header sent, if any. */
  authorization: string | null;
  credentials: RequestCredentials | undefined;
};
export type FakeReply = { status: number; body?: unknown; headers?: Record<string, string> };
export type FakeHandler = (request: FakeRequest) => FakeReply | Promise<FakeReply>;

export const reply = (status: number, body?: unknown): FakeReply => ({ status, body });
/** An error answer shaped like the API's: `{statusCode, message, error}` (and headers such as Retry-After). */
export const fail = (status: number, message: string, headers?: Record<string, string>): FakeReply => ({
  ...reply(status, { statusCode: status, message, error: 'Error' }),
  headers,
});

/**
 * Stubs `fetch` with a table of routes ('POST /auth/login' → handler) and records every request.
 * Unknown routes answer 404; /auth/providers answers no providers unless told otherwise. A route can be
 * changed while a test runs with `on()`.
 */
export function fakeApi(routes: Record<string, FakeHandler | FakeReply> = {}) {
  const table = new Map<string, FakeHandler>();
  const calls: FakeRequest[] = [];
  const on = (route: string, handler: FakeHandler | FakeReply) =>
    table.set(route, typeof handler === 'function' ? handler : () => handler);
  // The login and signup pages always ask; most tests do not care which providers are on.
  on('GET /auth/providers', reply(200, { providers: [] }));
  for (const [route, handler] of Object.entries(routes)) on(route, handler);

  const fetch = vi.fn(async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://portal.test');
    const path = url.pathname.startsWith(`${API_BASE}/`) ? url.pathname.slice(API_BASE.length) : url.pathname;
    const method = init.method ?? 'GET';
    const headers = new Headers(init.headers);
    const request: FakeRequest = {
      method,
      path: path + url.search,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
      authorization: headers.get('Authorization'),
      credentials: init.credentials,
    };
    calls.push(request);
    const handler = table.get(`${method} ${request.path}`) ?? table.get(`${method} ${path}`);
    const { status, body, headers: extra } = handler ? await handler(request) : fail(404, 'Not found');
    return new Response(body === undefined ? null : JSON.stringify(body), {
      status,
      headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...extra },
    });
  });
  vi.stubGlobal('fetch', fetch);

  return {
    on,
    calls,
    /** Requests to one route ('POST /auth/refresh'). */
    callsTo: (route: string) => calls.filter((call) => `${call.method} ${call.path}` === route),
  };
}

/** A promise the test settles when it chooses. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const testUser = {
  id: '0b7f8f0e-8d1c-4b52-9d0e-3c1b6f1f2a10',
  handle: 'zero_cool',
  email: 'zero@example.com',
  mmr: 1000,
  country: null,
  latitude: null,
  longitude: null,
  isOnline: true,
  credits: 12.5,
  freeCredits: 3,
  subscription: { tier: 'BASIC' as const },
};

export const tokenAnswer = (token: string) =>
  reply(200, { access_token: token, token_type: 'Bearer', expires_in: 900 });

/**
 * The operator's box as GET /boxes/my answers it: running, reachable at 10.66.0.2, no VPN client yet, one
 * service to keep up (not listening yet).
 */
export const testBox: Box = {
  id: '6f0c1f7e-2b1a-4c0e-9a57-1d2e3f4a5b6c',
  hostname: 'zero-cool-box',
  ip: '10.66.0.2',
  status: 'RUNNING',
  ssh_password: 'hunter2-root',
  accumulatedUsageSeconds: 3723,
  lastPoweredAt: '2025-03-01T12:00:00.000Z',
  vpnClients: [],
  openPorts: { '22': 'ssh' },
  owner: { id: testUser.id, handle: testUser.handle },
  dailyRemainingSeconds: null,
  statusReason: null,
  unavailableReason: null,
  services: [
    { name: 'NetDiag', port: 8080, keeps: 'Pings the host given at /ping?host=… and shows ping’s output.' },
  ],
};

/** GET /boxes/runtime of a platform that can run boxes, its base image built. */
export const readyRuntime: BoxRuntime = {
  available: true,
  reason: null,
  image: { state: 'ready', percent: 100, step: null },
};

/** GET /user-vpn/pool-status with room in both pools. */
export const openPools: VpnPoolStatus = {
  tcp: { capacity_level: 'available', is_exhausted: false },
  udp: { capacity_level: 'available', is_exhausted: false },
};

/** GET /users/me/onboarding with these steps done (the others open), not complete unless all are. */
export function onboardingWith(
  done: readonly OnboardingStep[],
  steps: readonly OnboardingStep[] = ONBOARDING_STEPS,
): Onboarding {
  const all = steps.every((step) => done.includes(step));
  return {
    steps: steps.map((step) => ({
      step,
      done: done.includes(step),
      doneAt: done.includes(step) ? '2025-03-01T12:00:00.000Z' : null,
    })),
    complete: all,
    completedAt: all ? '2025-03-01T12:30:00.000Z' : null,
  };
}

/** The checklist of a returning player: every step done, complete. */
export const completeOnboarding: Onboarding = onboardingWith(ONBOARDING_STEPS);
