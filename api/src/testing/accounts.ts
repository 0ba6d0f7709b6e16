import { randomBytes } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { simpleParser } from 'mailparser';

/** A signed-in player made through the API. */
export interface TestAccount {
  id: string;
  handle: string;
  email: string;
  password: string;
  /** Access token for `Authorization: Bearer`. */
  token: string;
}

/** Enough of a platform: its URL and DATA_DIR (mail goes to DATA_DIR/mail without SMTP_URL). */
interface PlatformLike {
  baseUrl: string;
  dataDir: string;
}

/** A handle nobody has yet (3-24 of letters, digits, `_` and `-`). */
export function uniqueHandle(prefix = 'op'): string {
  return `${prefix}_${Date.now().toString(36)}${randomBytes(3).toString('hex')}`.slice(0, 24);
}

/**
 * Signs up through the API, follows the verification link of the mail the platform wrote to
 * DATA_DIR/mail, and signs in. Many accounts from one address need the platform's signup and
 * login throttles raised (PlatformOptions.throttleLimits).
 */
export async function createAccount(
  platform: PlatformLike,
  options: {
    handle?: string;
    email?: string;
    password?: string;
    /** Extra request headers, e.g. X-Forwarded-For to sign up many players past the per-address throttle. */
    headers?: Record<string, string>;
  } = {},
): Promise<TestAccount> {
  const handle = options.handle ?? uniqueHandle();
  const email =
    options.email ??
    `${handle.toLowerCase().replace(/[^a-z0-9]/g, '.')}.${randomBytes(3).toString('hex')}@example.test`;
  const password = options.password ?? 'correct horse battery';
  const api = `${platform.baseUrl}/api/v1`;
  const json = { 'content-type': 'application/json', ...options.headers };
  const signup = await fetch(`${api}/auth/signup`, {
    method: 'POST',
    headers: json,
    // The visitor confirms they are 13 or older and accepts the terms, as the sign-up page makes them.
    body: JSON.stringify({ handle, email, password, ageConfirmed: true, termsAccepted: true }),
  });
  if (signup.status !== 201) throw new Error(`sign-up answered ${signup.status}: ${await signup.text()}`);
  const link = new URL(await linkFromMailFile(platform.dataDir, email, '/api/v1/auth/verify-email'));
  const verified = await fetch(`${platform.baseUrl}${link.pathname}${link.search}`, { redirect: 'manual' });
  if (verified.headers.get('location') !== '/login?verified=true')
    throw new Error(`verification answered ${verified.status} ${verified.headers.get('location')}`);
  const login = await fetch(`${api}/auth/login`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email, password }),
  });
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${await login.text()}`);
  const token = ((await login.json()) as { access_token: string }).access_token;
  const me = await fetch(`${api}/users/me`, { headers: { authorization: `Bearer ${token}` } });
  if (me.status !== 200) throw new Error(`/users/me answered ${me.status}: ${await me.text()}`);
  const { id } = (await me.json()) as { id: string };
  return { id, handle, email, password, token };
}

/** Waits for a mail to `to` in DATA_DIR/mail and answers the first link in it containing `fragment`. */
export async function linkFromMailFile(
  dataDir: string,
  to: string,
  fragment: string,
  timeoutMs = 15_000,
): Promise<string> {
  const dir = path.join(dataDir, 'mail');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const files = await readdir(dir).catch(() => [] as string[]);
    // Newest first (names start with the time): the mail waited for is usually the last one.
    for (const file of files.sort().reverse()) {
      const mail = await simpleParser(await readFile(path.join(dir, file)));
      const recipients = (Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : []).flatMap((a) =>
        a.value.map((v) => v.address?.toLowerCase()),
      );
      if (!recipients.includes(to.toLowerCase())) continue;
      const found = (mail.text ?? '').match(/https?:\/\/\S+/g)?.find((l) => l.includes(fragment));
      if (found) return found;
    }
    await sleep(20);
  }
  throw new Error(`no mail to ${to} with a link containing ${fragment} in ${dir}`);
}
