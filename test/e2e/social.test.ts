import { expect } from 'chai';
import { Events, OAuth2Server } from 'oauth2-mock-server';
import { SOCIAL_CONSENT_REQUIRED_REASON } from '../../api/src/contracts/constants.ts';
import {
  AGE_CONFIRM_LABEL,
  PRIVACY_LINK,
  SOCIAL_CONSENT_REQUIRED,
  TERMS_LINK,
} from '../../portal/src/strings/auth.ts';
import { launchBrowser, type Browser } from '../support/browser.ts';
import { freePort, startPlatform, type RunningPlatform } from '../support/platform.ts';

describe('social sign-in in Chromium, against a local OpenID Connect provider', () => {
  let provider: OAuth2Server;
  let platform: RunningPlatform;
  let browser: Browser;

  before(async () => {
    provider = new OAuth2Server();
    await provider.issuer.keys.generate('RS256');
    await provider.start(await freePort(), '127.0.0.1');
    provider.service.on(Events.BeforeUserinfo, (response) => {
      response.body = {
        sub: 'g-1001',
        email: 'morpheus@example.test',
        email_verified: true,
        given_name: 'Morpheus',
      };
    });
    const issuer = provider.issuer.url!;
    const port = await freePort();
    platform = await startPlatform({
      env: {
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        GOOGLE_CLIENT_ID: 'e2e-client',
        GOOGLE_CLIENT_SECRET: 'e2e-secret',
        GOOGLE_AUTHORIZATION_URL: `${issuer}/authorize`,
        GOOGLE_TOKEN_URL: `${issuer}/token`,
        GOOGLE_USERINFO_URL: `${issuer}/userinfo`,
      },
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await platform?.stop();
    await provider?.stop();
  });

  it('sends a first sign-in from the login page to sign-up, which creates the account once both boxes are ticked', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${platform.url}/login`);
    await page.getByRole('link', { name: 'Continue with Google' }).waitFor();
    expect(await page.getByRole('link', { name: 'Continue with GitHub' }).count()).to.equal(0);
    // No account yet, and no consent given on the login page: nothing is created.
    await page.getByRole('link', { name: 'Continue with Google' }).click();
    await page.waitForURL(`${platform.url}/signup?reason=${SOCIAL_CONSENT_REQUIRED_REASON}`);
    await page.getByText(SOCIAL_CONSENT_REQUIRED).waitFor();
    const google = page.getByRole('button', { name: 'Sign up with Google' });
    expect(await google.isDisabled()).to.equal(true);
    await page.getByRole('checkbox', { name: AGE_CONFIRM_LABEL }).check();
    await page.getByRole('checkbox', { name: `I accept the ${TERMS_LINK} and the ${PRIVACY_LINK}.` }).check();
    await page.getByRole('link', { name: 'Sign up with Google' }).click();
    await page.waitForURL(`${platform.url}/dashboard`);
    await page.getByText('Welcome, Operator').waitFor();
    await page.getByText('Morpheus').first().waitFor();
    // The single-use code is not left in the address bar or the history entry.
    expect(page.url()).not.to.include('token=');
    await page.close();
  });

  it('signs the account in from the login page from then on', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${platform.url}/login`);
    // The earlier test's session is still in this profile: sign out first.
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${platform.url}/login`);
    await page.getByRole('link', { name: 'Continue with Google' }).click();
    await page.waitForURL(`${platform.url}/dashboard`);
    await page.getByText('Morpheus').first().waitFor();
    await page.close();
  });
});
