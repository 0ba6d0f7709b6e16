import type { Page } from 'playwright-core';
import { AUTH_STORAGE_KEY, AUTH_STORAGE_VERSION } from '../../portal/src/stores/storedSession.ts';

/** The portal's saved session in the browser, as tests and benchmarks read and plant it. */

/**
 * Saves a session with `accessToken` in the page's storage before its first script runs, as a returning
 * player's browser has it (the portal loads the user and the box from the API).
 */
export async function storeSessionBeforeLoad(page: Page, accessToken: string): Promise<void> {
  await page.addInitScript(
    ({ key, version, token }) =>
      localStorage.setItem(
        key,
        JSON.stringify({ version, state: { accessToken: token, user: null, box: null } }),
      ),
    { key: AUTH_STORAGE_KEY, version: AUTH_STORAGE_VERSION, token: accessToken },
  );
}

/** The access token the portal holds in the page now. */
export const storedAccessToken = (page: Page): Promise<string> =>
  page.evaluate(
    (key) => JSON.parse(localStorage.getItem(key)!).state.accessToken as string,
    AUTH_STORAGE_KEY,
  );

/** The saved session as the page holds it (null when there is none). */
export const storedSession = (page: Page): Promise<string | null> =>
  page.evaluate((key) => localStorage.getItem(key), AUTH_STORAGE_KEY);

export { AUTH_STORAGE_KEY };
