/** localStorage key of the persisted session (core-app section 3: accessToken, user and box). */
export const AUTH_STORAGE_KEY = 'exploit-grid.auth';
/** Persisted sessions of any other version are dropped (core-app section 9). */
export const AUTH_STORAGE_VERSION = 2;

/**
 * Whether this browser holds a saved session, read without the session's stores (their code, zod and the
 * API's contracts, is not loaded on the public pages). A hint only: the signed-in layout checks the session
 * with the API, and ends it when the API refuses it.
 */
export function hasStoredSession(storage?: Storage): boolean {
  // The build's prerendering (prerender.tsx) has no browser storage: a visitor with no session.
  const store = storage ?? (typeof localStorage === 'undefined' ? null : localStorage);
  if (!store) return false;
  try {
    const saved = JSON.parse(store.getItem(AUTH_STORAGE_KEY) ?? 'null') as {
      state?: { accessToken?: unknown };
    } | null;
    const token = saved?.state?.accessToken;
    return typeof token === 'string' && token.length > 0;
  } catch {
    return false;
  }
}
