import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { SignJWT, decodeJwt } from 'jose';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../support/browser.ts';
import { linkFromMailFile } from '../support/mail.ts';
import { startPlatform, type RunningPlatform } from '../support/platform.ts';
import { AUTH_STORAGE_KEY, storedSession } from '../support/session.ts';

describe('accounts in Chromium: sign up, verify by mail, sign in, stay signed in, sign out', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const identity = { handle: 'neo_e2e', email: 'neo.e2e@example.test', password: 'follow the white rabbit' };

  before(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (msg) => {
      // 4xx answers the page expects (a refused login) show up as console errors: only other errors count.
      if (msg.type() === 'error' && !/status of 4\d\d/.test(msg.text())) problems.push(msg.text());
    });
  });
  after(async () => {
    await browser?.close();
    await platform?.stop();
  });

  async function logIn(email: string, password: string) {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Log In' }).click();
  }

  it('signs up and lands on Awaiting Confirmation', async () => {
    await page.goto(`${platform.url}/signup?utm_source=e2e&ref=FRIEND`);
    await page.getByLabel('Email').fill(identity.email);
    await page.getByLabel('Handle').fill(identity.handle);
    await page.getByLabel('Password', { exact: true }).fill(identity.password);
    await page.getByRole('checkbox', { name: 'I am 13 years of age or older.' }).check();
    await page
      .getByRole('checkbox', { name: 'I accept the Terms of Service and the Privacy Policy.' })
      .check();
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await page.waitForURL(`${platform.url}/awaiting-verification`);
    await page.getByText('Awaiting Confirmation').first().waitFor();
  });

  it('refuses to sign in before the address is verified', async () => {
    await page.goto(`${platform.url}/login`);
    await logIn(identity.email, identity.password);
    await page.waitForURL(`${platform.url}/awaiting-verification`);
    await page.getByText('Your access is not yet confirmed. Awaiting email verification.').waitFor();
  });

  it('verifies through the link in the mail', async () => {
    const link = await linkFromMailFile(platform.apiDataDir, identity.email, '/api/v1/auth/verify-email');
    const target = new URL(link);
    await page.goto(`${platform.url}${target.pathname}${target.search}`);
    await page.waitForURL(/\/login\?verified=true$/);
    await page.getByText('System link confirmed. You may now authenticate.').waitFor();
  });

  it('signs in and greets the operator on the dashboard', async () => {
    await logIn(identity.email, identity.password);
    await page.waitForURL(`${platform.url}/dashboard`);
    // A new player: the first-hour greeting ('Welcome Back' once their checklist is complete).
    await page.getByText('Welcome, Operator').waitFor();
    await page.getByText(identity.handle).first().waitFor();
    // Both realtime connections open with the access token, through the CSP.
    await page.getByRole('status', { name: 'On the Grid' }).waitFor();
    expect(problems).to.deep.equal([]);
  });

  it('stays signed in across a reload', async () => {
    await page.reload();
    await page.getByText('Welcome, Operator').waitFor();
    const stored = JSON.parse((await storedSession(page)) ?? '{}');
    expect(stored.version).to.equal(2);
  });

  it('refreshes an expired access token without the operator noticing', async () => {
    const stored = JSON.parse((await storedSession(page))!);
    const claims = decodeJwt(stored.state?.accessToken ?? stored.accessToken);
    const secret = (await readFile(path.join(platform.apiDataDir, 'jwt.secret'), 'utf8')).trim();
    const expired = await new SignJWT({ sid: claims.sid })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.sub!)
      .setIssuer(claims.iss!)
      .setAudience(claims.aud as string)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 3600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 1800)
      .sign(new TextEncoder().encode(secret));
    await page.evaluate(
      ({ key, token }) => {
        const value = JSON.parse(localStorage.getItem(key)!);
        if (value.state) value.state.accessToken = token;
        else value.accessToken = token;
        localStorage.setItem(key, JSON.stringify(value));
      },
      { key: AUTH_STORAGE_KEY, token: expired },
    );
    const refreshed = page.waitForResponse(
      (res) => res.url().endsWith('/api/v1/auth/refresh') && res.status() === 200,
    );
    await page.reload();
    await refreshed;
    await page.getByText('Welcome, Operator').waitFor();
    expect(page.url()).to.equal(`${platform.url}/dashboard`);
  });

  it('sends a revoked session to /login and back to the page it was on after signing in', async () => {
    await page.goto(`${platform.url}/dashboard?panel=stats`);
    await page.getByText('Welcome, Operator').waitFor();
    // The session ends elsewhere (another tab logs out): the refresh cookie stops working.
    const cookies = await browser.context.cookies(`${platform.url}/api/v1/auth`);
    const refresh = cookies.find((c) => c.name === 'eg_refresh');
    expect(refresh?.httpOnly).to.equal(true);
    expect(refresh?.sameSite).to.equal('Strict');
    const out = await fetch(`${platform.url}/api/v1/auth/logout`, {
      method: 'POST',
      headers: { cookie: `eg_refresh=${refresh!.value}` },
    });
    expect(out.status).to.equal(204);
    await page.reload();
    await page.waitForURL(`${platform.url}/login`);
    await logIn(identity.email, identity.password);
    await page.waitForURL(`${platform.url}/dashboard?panel=stats`);
    await page.getByText('Welcome, Operator').waitFor();
  });

  it('signs out and keeps signed-in pages closed afterwards', async () => {
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL(`${platform.url}/login`);
    await page.goto(`${platform.url}/dashboard`);
    await page.waitForURL(`${platform.url}/login`);
    const stored = await storedSession(page);
    expect(JSON.stringify(stored ?? '')).not.to.include('accessToken":"ey');
  });
});
