import { createAccount } from '../../api/src/testing/accounts.ts';
import type { RunningPlatform } from './platform.ts';

/**
 * Signs up through the API, follows the mailed verification link and signs in (the API tests'
 * helper, for a platform started as `make run` starts it).
 */
export async function createVerifiedAccount(
  platform: RunningPlatform,
  identity: { handle: string; email: string; password: string },
  /** Extra request headers, e.g. X-Forwarded-For to sign up many players past the per-address throttle. */
  headers: Record<string, string> = {},
): Promise<{ id: string; accessToken: string }> {
  const account = await createAccount(
    { baseUrl: platform.url, dataDir: platform.apiDataDir },
    { ...identity, headers },
  );
  return { id: account.id, accessToken: account.token };
}
