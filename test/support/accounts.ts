import { linkFromMailFile } from './mail.ts';
import type { RunningPlatform } from './platform.ts';

/** Signs up through the API, follows the mailed verification link and signs in. */
export async function createVerifiedAccount(
  platform: RunningPlatform,
  identity: { handle: string; email: string; password: string },
  /** Extra request headers, e.g. X-Forwarded-For to sign up many players past the per-address throttle. */
  headers: Record<string, string> = {},
): Promise<{ accessToken: string; refreshCookie: string }> {
  const api = `${platform.url}/api/v1`;
  const json = { 'content-type': 'application/json', ...headers };
  const signup = await fetch(`${api}/auth/signup`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify(identity),
  });
  if (signup.status !== 201) throw new Error(`sign-up answered ${signup.status}: ${await signup.text()}`);
  const link = new URL(await linkFromMailFile(platform.dataDir, identity.email, '/api/v1/auth/verify-email'));
  const verified = await fetch(`${platform.url}${link.pathname}${link.search}`, { redirect: 'manual' });
  if (verified.headers.get('location') !== '/login?verified=true') throw new Error('verification failed');
  const login = await fetch(`${api}/auth/login`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email: identity.email, password: identity.password }),
  });
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${await login.text()}`);
  const body = (await login.json()) as { access_token: string };
  const refreshCookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return { accessToken: body.access_token, refreshCookie };
}
