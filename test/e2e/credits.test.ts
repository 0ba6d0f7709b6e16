import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { COMMERCE_MESSAGES } from '../../api/src/contracts/constants.ts';
import {
  STRIPE_TEST,
  postWebhook,
  signStripe,
  stripeEvent,
  stripeSession,
} from '../../api/src/testing/payments.ts';
import { startStripeMock, type StripeMock } from '../../api/src/testing/stripe-mock.ts';
import { createVerifiedAccount } from '../support/accounts.ts';
import { launchBrowser, type Browser } from '../support/browser.ts';
import { repoRoot, startPlatform, type RunningPlatform } from '../support/platform.ts';
import { until } from '../support/until.ts';

/**
 * The money path in Chromium (issue 18): a player with no credits buys 2,000 through Stripe Checkout (the real
 * SDK against stripe-mock; Stripe's hosted page stood in for, and its signed webhook posted as Stripe would),
 * sees the balance change on another open page without reloading, comes back to the success message, and
 * redeems a gift token that staff minted with the CLI.
 */
describe('credits in Chromium: buy through Stripe, see the balance live, redeem a gift', () => {
  let stripe: StripeMock;
  let platform: RunningPlatform;
  let browser: Browser;
  let buying: Page;
  let watching: Page;
  let userId: string;
  let accessToken: string;
  const problems: string[] = [];
  const identity = {
    handle: 'buyer_e2e',
    email: 'buyer.e2e@example.test',
    password: 'correct horse battery',
  };

  before(async () => {
    stripe = await startStripeMock();
    platform = await startPlatform({
      env: {
        STRIPE_SECRET_KEY: STRIPE_TEST.secretKey,
        STRIPE_WEBHOOK_SECRET: STRIPE_TEST.webhookSecret,
        STRIPE_API_URL: stripe.url,
        // A player with nothing: no welcome gift either.
        STARTING_FREE_CREDITS: '0',
      },
    });
    const account = await createVerifiedAccount(platform, identity);
    userId = account.id;
    accessToken = account.accessToken;
    browser = await launchBrowser();
    buying = await browser.context.newPage();
    watching = await browser.context.newPage();
    for (const page of [buying, watching]) {
      page.on('pageerror', (err) => problems.push(err.message));
      page.on('console', (msg) => {
        if (msg.type() === 'error' && !/status of 4\d\d/.test(msg.text())) problems.push(msg.text());
      });
    }
    // Stripe's hosted checkout is on the internet: a stand-in page where the player would pay.
    await browser.context.route(/^https:\/\/checkout\.stripe\.com\//, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<title>Stripe Checkout</title><h1>Pay</h1>' }),
    );
  });
  after(async () => {
    await browser?.close();
    await platform?.stop();
    await stripe?.close();
  });

  const balance = (page: Page, testId: 'credits' | 'free-credits') =>
    page.getByRole('group', { name: 'Balances' }).getByTestId(testId);

  it('signs in; the other open page shows no credits', async () => {
    await buying.goto(`${platform.url}/login`);
    await buying.getByLabel('Email').fill(identity.email);
    await buying.getByLabel('Password', { exact: true }).fill(identity.password);
    await buying.getByRole('button', { name: 'Log In' }).click();
    await buying.waitForURL(`${platform.url}/dashboard`);
    await watching.goto(`${platform.url}/dashboard`);
    await watching.getByRole('status', { name: 'On the Grid' }).waitFor();
    expect(await balance(watching, 'credits').textContent()).to.equal('0.00');
  });

  let sessionId: string;
  let purchaseId: string;

  it('starts a purchase of 20 USD and is sent to Stripe Checkout', async () => {
    await buying.goto(`${platform.url}/plans`);
    await buying.getByRole('tab', { name: 'Purchase Credits', selected: true }).waitFor();
    // The page leaves for Stripe at once: the API's answer is read on its way to the page.
    let checkout: { sessionId: string; purchaseId: string } | undefined;
    await buying.route('**/api/v1/subscription/checkout', async (route) => {
      const response = await route.fetch();
      checkout = (await response.json()) as typeof checkout;
      await route.fulfill({ response });
    });
    await buying.getByRole('button', { name: 'Buy 2,000 credits for $20' }).click();
    await buying.waitForURL(/^https:\/\/checkout\.stripe\.com\//);
    sessionId = checkout!.sessionId;
    purchaseId = checkout!.purchaseId;
    expect(sessionId).to.match(/^cs_/);
    // Nothing is credited by starting a checkout or by coming back: only the provider's webhook credits.
    expect(await balance(watching, 'credits').textContent()).to.equal('0.00');
  });

  it('credits once when Stripe’s signed webhook lands; the open page follows without a reload', async () => {
    const navigations: string[] = [];
    watching.on('framenavigated', (frame) => navigations.push(frame.url()));
    const body = stripeEvent(
      'checkout.session.completed',
      stripeSession({ sessionId, purchaseId, userId, amountCents: 2000 }),
    );
    // Stripe retries: the same event twice, and a forged one, change nothing more.
    expect((await postWebhook(platform.url, 'stripe', body, signStripe(body))).status).to.equal(200);
    expect((await postWebhook(platform.url, 'stripe', body, signStripe(body))).status).to.equal(200);
    const forged = body.replace('"amount_total":2000', '"amount_total":100000');
    expect(
      (await postWebhook(platform.url, 'stripe', forged, signStripe(body))).status,
      'a body that is not the one signed',
    ).to.equal(400);
    await until(
      '2000.00 credits on the open page',
      async () => (await balance(watching, 'credits').textContent()) === '2000.00',
    );
    expect(navigations, 'the page did not reload').to.deep.equal([]);
    const ledger = (await (
      await fetch(`${platform.url}/api/v1/credits/ledger`, {
        headers: { authorization: `Bearer ${accessToken}` },
      })
    ).json()) as { data: { reason: string; creditsDelta: number }[] };
    expect(ledger.data.filter((line) => line.reason === 'PURCHASE')).to.deep.equal([
      { ...ledger.data.find((line) => line.reason === 'PURCHASE'), reason: 'PURCHASE', creditsDelta: 2000 },
    ]);
  });

  it('comes back from Stripe to the success message and the new balance', async () => {
    await buying.goto(`${platform.url}/plans?success=true&session_id=${sessionId}`);
    await buying.getByText(COMMERCE_MESSAGES.purchaseSucceeded).waitFor();
    await buying.getByText('2000.00').first().waitFor();
    await buying.goto(`${platform.url}/credits`);
    await buying.getByText('Purchase $20').waitFor();
  });

  it('redeems a gift token that staff minted on the command line, once', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(repoRoot, 'api/dist/staff.js'), 'gifts', 'mint', '--credits', '50', '--note', 'e2e'],
      { env: { ...process.env, DATA_DIR: platform.dataDir, STAFF_ACTOR: 'e2e' } },
    );
    const token = stdout.trim();
    expect(token).to.match(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);

    await buying.goto(`${platform.url}/redeem`);
    const input = buying.getByLabel('Gift Token');
    // Typed the way people type: lower case, no dashes.
    await input.fill(token.replace(/-/g, '').toLowerCase());
    await buying.getByRole('button', { name: 'Redeem Now' }).click();
    await buying.getByText('Redeemed 50.00 credits').waitFor();
    expect(await input.inputValue()).to.equal('');
    await until(
      '50.00 free credits on the open page',
      async () => (await balance(watching, 'free-credits').textContent()) === '50.00',
    );

    await input.fill(token);
    await buying.getByRole('button', { name: 'Redeem Now' }).click();
    await buying.getByText(COMMERCE_MESSAGES.redeemInvalid).first().waitFor();
    expect(await balance(buying, 'free-credits').textContent()).to.equal('50.00');
    expect(problems).to.deep.equal([]);
  });
});
