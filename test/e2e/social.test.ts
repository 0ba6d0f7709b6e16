import { expect } from 'chai';
import { Events, OAuth2Server } from 'oauth2-mock-server';
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

  it('offers only the configured provider and signs in with it', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${platform.url}/login`);
    await page.getByRole('link', { name: 'Continue with Google' }).waitFor();
    expect(await page.getByRole('link', { name: 'Continue with GitHub' }).count()).to.equal(0);
    await page.getByRole('link', { name: 'Continue with Google' }).click();
    await page.waitForURL(`${platform.url}/dashboard`);
    await page.getByText('Welcome, Operator').waitFor();
    await page.getByText('Morpheus').first().waitFor();
    // The single-use code is not left in the address bar or the history entry.
    expect(page.url()).not.to.include('token=');
  });
});
