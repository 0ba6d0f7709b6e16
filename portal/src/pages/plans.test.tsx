import { GRID_NAMESPACE, TIER_PERKS } from '@exploit-grid/api/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../notifications/toast.ts';
import { RootStore } from '../stores/RootStore.ts';
import {
  AMOUNT_INVALID,
  AMOUNT_LABEL,
  AMOUNT_SLIDER_LABEL,
  BALANCE_TITLE,
  CHANGE_TIER,
  COMING_SOON,
  COST,
  CURRENT_TIER,
  LOGIN_TO_PURCHASE,
  PADDLE_FAILED,
  PAYMENTS_DISABLED,
  PLANS_TITLE,
  PRICING_TITLE,
  PURCHASE_CANCELED,
  PURCHASE_FAILED,
  PURCHASE_SUCCEEDED,
  REDEEM_INSTEAD,
  STARTING_CHECKOUT,
  STRIPE_FAILED,
  TAB_OVERVIEW,
  TAB_PURCHASE,
  TIER_CHOICE_LABEL,
  TIER_OVERVIEW_LABEL,
  UNLIMITED,
  UPGRADE_TIER,
  YOUR_TIER,
  unknownProvider,
} from '../strings/plans.ts';
import { SIDEBAR_LABEL } from '../strings/appShell.ts';
import { deferred, fail, fakeApi, reply, testUser, type FakeReply } from '../testing/fakeApi.ts';
import { noPaymentsConfig, plansRoutes, stripeConfig } from '../testing/commerce.ts';
import { fakeSockets } from '../testing/fakeSockets.ts';
import { locationOf, renderRoute, renderSignedIn } from '../test-utils.tsx';

type Routes = Parameters<typeof renderSignedIn>[1];

// Each test renders the whole signed-in shell and a lazily loaded page: slow on a loaded two-core machine.
vi.setConfig({ testTimeout: 20_000 });

/** /plans for the signed-in test user (12.50 credits, 3.00 Gift, BASIC), leaving pages through a spy. */
async function plansPage(path = '/plans', routes: Routes = {}) {
  const assignLocation = vi.fn();
  const rendered = renderSignedIn(path, { ...plansRoutes(), ...routes }, { assignLocation });
  await screen.findByRole('heading', { level: 1, name: PLANS_TITLE });
  return { ...rendered, assignLocation };
}

/** The purchase form, once the payment configuration arrived. */
async function purchaseForm() {
  return (await screen.findByRole('spinbutton', { name: AMOUNT_LABEL })) as HTMLInputElement;
}

const typeAmount = (value: string) =>
  fireEvent.change(screen.getByRole('spinbutton', { name: AMOUNT_LABEL }), { target: { value } });
const buyButton = () =>
  screen.getByRole('button', { name: /^Buy .*credits|^Starting checkout/ }) as HTMLButtonElement;
const activity = (api: { callsTo: (route: string) => { body: unknown }[] }) =>
  api.callsTo('POST /user-activity/log').map((call) => call.body);

beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

describe('Plans /plans: purchase', () => {
  it('opens on Purchase Credits: $20 by default, 2,000 credits, $20.00, and the balance to 2 decimals', async () => {
    const { api } = await plansPage();
    const amount = await purchaseForm();
    expect(amount.value).toBe('20');
    expect(screen.getByRole('tab', { name: TAB_PURCHASE }).getAttribute('aria-selected')).toBe('true');
    expect(screen.getByTestId('credits-received').textContent).toBe('2,000 credits');
    expect(screen.getByTestId('cost').textContent).toBe('$20.00');
    expect(buyButton().textContent).toBe('Buy 2,000 credits for $20.00');
    const balance = screen.getAllByRole('region', { name: BALANCE_TITLE })[0]!;
    expect(within(balance).getByTestId('balance-credits').textContent).toBe('12.50');
    expect(within(balance).getByTestId('balance-gift').textContent).toBe('3.00');
    expect(api.callsTo('GET /subscription/config')).toHaveLength(1);
    await waitFor(() => expect(activity(api)).toEqual([{ activityType: 'SUBSCRIPTIONS_VIEW' }]));
    await waitFor(() => expect(document.title).toBe('Plans | Exploit Grid'));
  });

  it('moves the input, the slider and the credits together; quick picks set 10, 20, 50, 100', async () => {
    await plansPage();
    await purchaseForm();
    const slider = screen.getByRole('slider', { name: AMOUNT_SLIDER_LABEL }) as HTMLInputElement;
    expect([slider.min, slider.max, slider.step, slider.value]).toEqual(['5', '1000', '1', '20']);
    for (const pick of [10, 20, 50, 100]) {
      fireEvent.click(screen.getByRole('button', { name: `$${pick}` }));
      expect((screen.getByRole('spinbutton', { name: AMOUNT_LABEL }) as HTMLInputElement).value).toBe(
        String(pick),
      );
      expect(slider.value).toBe(String(pick));
      expect(screen.getByTestId('credits-received').textContent).toBe(
        `${(pick * 100).toLocaleString('en-US')} credits`,
      );
      expect(screen.getByRole('button', { name: `$${pick}` }).getAttribute('aria-pressed')).toBe('true');
    }
    fireEvent.change(slider, { target: { value: '737' } });
    expect((screen.getByRole('spinbutton', { name: AMOUNT_LABEL }) as HTMLInputElement).value).toBe('737');
    expect(screen.getByTestId('cost').textContent).toBe('$737.00');
    typeAmount('1000');
    expect(screen.getByTestId('credits-received').textContent).toBe('100,000 credits');
    typeAmount('5');
    expect(screen.getByTestId('credits-received').textContent).toBe('500 credits');
  });

  it('refuses amounts below 5, above 1000 and not whole, and sends nothing', async () => {
    const { api } = await plansPage();
    await purchaseForm();
    for (const value of ['4', '1001', '12.5', '0', '', '-20']) {
      typeAmount(value);
      expect(screen.getByText(AMOUNT_INVALID), `amount ${JSON.stringify(value)}`).toBeTruthy();
      expect(screen.getByRole('spinbutton', { name: AMOUNT_LABEL }).getAttribute('aria-invalid')).toBe(
        'true',
      );
      expect(buyButton().disabled).toBe(true);
      expect(screen.getByTestId('credits-received').textContent).toBe('—');
      fireEvent.click(buyButton());
    }
    expect(api.callsTo('POST /subscription/checkout')).toHaveLength(0);
    typeAmount('25');
    expect(screen.queryByText(AMOUNT_INVALID)).toBeNull();
    expect(buyButton().disabled).toBe(false);
  });

  it('labels the tiers by tier order: Current Tier for BASIC; the others coming soon; ELITE is Syndicate', async () => {
    await plansPage();
    await purchaseForm();
    const tiers = screen.getByRole('list', { name: TIER_CHOICE_LABEL });
    const button = (name: string) => within(tiers).getByRole('listitem', { name }).querySelector('button')!;
    expect(button('Basic').textContent).toBe(CURRENT_TIER);
    expect(button('Basic').disabled).toBe(true);
    for (const name of ['Hacker', 'Syndicate', 'Team']) {
      expect(button(name).textContent).toBe(UPGRADE_TIER);
      expect(button(name).disabled).toBe(true);
      expect(within(within(tiers).getByRole('listitem', { name })).getByText(COMING_SOON)).toBeTruthy();
    }
    expect(within(tiers).queryByText('ELITE')).toBeNull();
  });

  it('offers Change Tier back to BASIC to a player of a higher tier, and buys BASIC', async () => {
    const { api, assignLocation } = await plansPage('/plans', {
      'GET /users/me': reply(200, { ...testUser, subscription: { tier: 'ELITE' } }),
      'POST /subscription/checkout': reply(200, {
        provider: 'stripe',
        purchaseId: '6f0c1f7e-2b1a-4c0e-9a57-1d2e3f4a5b6d',
        sessionId: 'cs_test_1',
        checkoutUrl: 'https://checkout.stripe.com/c/pay/cs_test_1',
      }),
    });
    await purchaseForm();
    const tiers = screen.getByRole('list', { name: TIER_CHOICE_LABEL });
    const button = (name: string) => within(tiers).getByRole('listitem', { name }).querySelector('button')!;
    expect(button('Basic').textContent).toBe(CHANGE_TIER);
    expect(button('Basic').disabled).toBe(false);
    expect(button('Hacker').textContent).toBe(CHANGE_TIER);
    expect(button('Syndicate').textContent).toBe(CURRENT_TIER);
    expect(button('Team').textContent).toBe(UPGRADE_TIER);
    fireEvent.click(button('Basic'));
    fireEvent.click(buyButton());
    await waitFor(() => expect(assignLocation).toHaveBeenCalled());
    expect(api.callsTo('POST /subscription/checkout')[0]?.body).toEqual({ amount: 20, tier: 'BASIC' });
  });

  it('starts a Stripe purchase: POST /subscription/checkout {amount, tier}, then to the hosted page', async () => {
    const answer = deferred<FakeReply>();
    const { api, assignLocation } = await plansPage('/plans', {
      'POST /subscription/checkout': () => answer.promise,
    });
    await purchaseForm();
    fireEvent.click(screen.getByRole('button', { name: '$50' }));
    fireEvent.click(buyButton());
    expect(buyButton().textContent).toBe(STARTING_CHECKOUT);
    expect(buyButton().disabled).toBe(true);
    fireEvent.click(buyButton());
    answer.resolve(
      reply(200, {
        provider: 'stripe',
        purchaseId: '6f0c1f7e-2b1a-4c0e-9a57-1d2e3f4a5b6d',
        sessionId: 'cs_test_1',
        checkoutUrl: 'https://checkout.stripe.com/c/pay/cs_test_1',
      }),
    );
    await waitFor(() =>
      expect(assignLocation).toHaveBeenCalledWith('https://checkout.stripe.com/c/pay/cs_test_1'),
    );
    expect(api.callsTo('POST /subscription/checkout').map((call) => call.body)).toEqual([
      { amount: 50, tier: 'BASIC' },
    ]);
  });

  it('starts a Paddle purchase by loading our checkout page as a document of its own', async () => {
    const { assignLocation } = await plansPage('/plans', {
      'POST /subscription/checkout': reply(200, {
        provider: 'paddle',
        purchaseId: '6f0c1f7e-2b1a-4c0e-9a57-1d2e3f4a5b6d',
        checkoutUrl: '/checkout/paddle?transactionId=txn_1&clientToken=test_1&amount=20',
      }),
    });
    await purchaseForm();
    fireEvent.click(buyButton());
    await waitFor(() =>
      expect(assignLocation).toHaveBeenCalledWith(
        `${window.location.origin}/checkout/paddle?transactionId=txn_1&clientToken=test_1&amount=20`,
      ),
    );
  });

  it.each([
    [
      'the server message',
      fail(400, 'amount must be between 5 and 1000 dollars'),
      'amount must be between 5 and 1000 dollars',
    ],
    ['Failed to start purchase. without one', reply(502), PURCHASE_FAILED],
    ['Failed to start purchase. for an answer it cannot read', reply(200, ['nope']), PURCHASE_FAILED],
    [
      'the Stripe message without a checkout URL',
      reply(200, { provider: 'stripe', purchaseId: 'p', sessionId: 'cs_1' }),
      STRIPE_FAILED,
    ],
    [
      'the Paddle message without a checkout URL',
      reply(200, { provider: 'paddle', purchaseId: 'p', checkoutUrl: '' }),
      PADDLE_FAILED,
    ],
    [
      'the provider it does not know',
      reply(200, { provider: 'square', purchaseId: 'p', checkoutUrl: 'https://x' }),
      unknownProvider('square'),
    ],
  ])('says %s when a purchase cannot start', async (_case, answer, message) => {
    const error = vi.spyOn(toast, 'error');
    const { assignLocation } = await plansPage('/plans', { 'POST /subscription/checkout': answer });
    await purchaseForm();
    fireEvent.click(buyButton());
    expect((await screen.findByTestId('purchase-error')).textContent).toBe(message);
    expect(error).toHaveBeenCalledWith(message);
    expect(assignLocation).not.toHaveBeenCalled();
    expect(buyButton().disabled).toBe(false);
  });

  it('says plainly that payments are not configured, points to gift tokens, and offers no buy button', async () => {
    const { api } = await plansPage('/plans', plansRoutes(noPaymentsConfig));
    expect(await screen.findByText(PAYMENTS_DISABLED)).toBeTruthy();
    const redeem = screen.getByRole('link', { name: REDEEM_INSTEAD });
    expect(redeem.getAttribute('href')).toBe('/redeem');
    expect(screen.queryByRole('button', { name: /^Buy / })).toBeNull();
    expect(screen.queryByRole('spinbutton', { name: AMOUNT_LABEL })).toBeNull();
    expect(screen.getAllByRole('region', { name: BALANCE_TITLE })).toHaveLength(1);
    expect(api.callsTo('POST /subscription/checkout')).toHaveLength(0);
  });

  it('tells a player back from a canceled checkout, logs PAYMENT_CANCELLED once, and drops the parameter', async () => {
    const { api, router } = await plansPage('/plans?canceled=true');
    expect(await screen.findByText(PURCHASE_CANCELED)).toBeTruthy();
    await waitFor(() =>
      expect(activity(api)).toEqual([
        { activityType: 'SUBSCRIPTIONS_VIEW' },
        { activityType: 'PAYMENT_CANCELLED' },
      ]),
    );
    await waitFor(() => expect(locationOf(router)).toBe('/plans'));
    expect(screen.getByText(PURCHASE_CANCELED)).toBeTruthy();
  });

  it('tells a player back from a paid checkout and reloads their balance', async () => {
    let loads = 0;
    // The layout's load on entry, then the page's reload once the webhook has credited.
    const { api } = await plansPage('/plans?success=true', {
      'GET /users/me': () => reply(200, { ...testUser, credits: ++loads === 1 ? 12.5 : 2012.5 }),
    });
    expect(await screen.findByText(PURCHASE_SUCCEEDED)).toBeTruthy();
    await waitFor(() => expect(api.callsTo('GET /users/me')).toHaveLength(2));
    await waitFor(() => expect(screen.getAllByTestId('balance-credits')[0]?.textContent).toBe('2012.50'));
    expect(activity(api)).toEqual([{ activityType: 'SUBSCRIPTIONS_VIEW' }]);
  });

  it('follows the live balance the grid pushes, in the page and the sidebar', async () => {
    const { sockets } = await plansPage();
    await purchaseForm();
    const [grid] = sockets.open(GRID_NAMESPACE);
    act(() => grid!.receive('balance', { credits: 2012.5, freeCredits: 0 }));
    expect(screen.getAllByTestId('balance-credits')[0]?.textContent).toBe('2012.50');
    expect(screen.getAllByTestId('balance-gift')[0]?.textContent).toBe('0.00');
    const sidebar = screen.getByRole('navigation', { name: SIDEBAR_LABEL });
    expect(within(sidebar).getByTestId('credits').textContent).toBe('2012.50');
    expect(within(sidebar).getByTestId('free-credits').textContent).toBe('0.00');
  });
});

describe('Plans /plans: tier overview', () => {
  it('shows the tier table: costs, session limit, snapshots, persistent IP and support; ELITE as Syndicate', async () => {
    await plansPage('/plans?mode=overview');
    const tiers = await screen.findByRole('list', { name: TIER_OVERVIEW_LABEL });
    const card = (name: string) => within(tiers).getByRole('article', { name });
    const perks = (name: string) =>
      Object.fromEntries(
        within(card(name))
          .getAllByRole('term')
          .map((term) => [term.textContent, term.nextElementSibling?.textContent]),
      );
    await within(card('Basic')).findByText('60 min/day');
    expect(perks('Basic')).toEqual({
      'Machine time': '40 credits/hour',
      'Attack cost': '5 credits',
      'Session limit': '60 min/day',
      'Snapshot slots': '0',
      'Persistent IP': 'No',
      Support: 'Community',
    });
    expect(perks('Hacker')).toMatchObject({
      'Machine time': '60 credits/hour',
      'Session limit': UNLIMITED,
      Support: 'Community',
    });
    expect(perks('Syndicate')).toMatchObject({
      'Machine time': '75 credits/hour',
      'Attack cost': '1 credit',
      'Snapshot slots': String(TIER_PERKS.ELITE.snapshotSlots),
      'Persistent IP': 'Yes',
      Support: 'Priority',
    });
    expect(perks('Team')).toMatchObject({ 'Snapshot slots': '5', Support: 'Direct' });
    expect(within(card('Basic')).getByText(YOUR_TIER)).toBeTruthy();
    expect(within(card('Basic')).getByText('$0.40 an hour')).toBeTruthy();
    expect(screen.queryByText('ELITE')).toBeNull();
  });

  it("shows BASIC's session limit as x min/day, as the server tells it", async () => {
    await plansPage('/plans?mode=overview', plansRoutes({ ...stripeConfig, basicDailyLimitMinutes: 45 }));
    const basic = within(await screen.findByRole('list', { name: TIER_OVERVIEW_LABEL })).getByRole(
      'article',
      {
        name: 'Basic',
      },
    );
    expect(await within(basic).findByText('45 min/day')).toBeTruthy();
  });

  it('switches between the two tabs', async () => {
    await plansPage();
    await purchaseForm();
    fireEvent.click(screen.getByRole('tab', { name: TAB_OVERVIEW }));
    expect(screen.getByRole('list', { name: TIER_OVERVIEW_LABEL })).toBeTruthy();
    expect(screen.queryByRole('spinbutton', { name: AMOUNT_LABEL })).toBeNull();
    fireEvent.click(screen.getByRole('tab', { name: TAB_PURCHASE }));
    expect(await purchaseForm()).toBeTruthy();
  });
});

describe('Pricing /pricing', () => {
  it('shows the tier overview to a visitor, without a Purchase tab, with Login to Purchase, asking only the public configuration', async () => {
    const api = fakeApi({
      'GET /subscription/config': reply(200, { ...stripeConfig, basicDailyLimitMinutes: 30 }),
    });
    const { router, store } = renderRoute('/pricing?mode=purchase');
    expect(await screen.findByRole('heading', { level: 1, name: PRICING_TITLE })).toBeTruthy();
    const overview = screen.getByRole('list', { name: TIER_OVERVIEW_LABEL });
    expect(await within(overview).findByText('30 min/day')).toBeTruthy();
    expect(screen.queryByRole('tab', { name: TAB_PURCHASE })).toBeNull();
    expect(screen.queryByText(COST)).toBeNull();
    const login = screen.getByRole('link', { name: LOGIN_TO_PURCHASE });
    expect(login.getAttribute('href')).toBe('/login');
    fireEvent.click(login);
    await waitFor(() => expect(locationOf(router)).toBe('/login'));
    expect(store.auth.takeRedirect()).toBe('/plans?mode=purchase');
    expect(
      api.calls
        .filter((call) => !call.path.startsWith('/auth/providers'))
        .map((c) => `${c.method} ${c.path}`),
    ).toEqual(['GET /subscription/config']);
  });

  it('gives a signed-in visitor the Purchase Credits tab of /plans', async () => {
    fakeApi();
    const store = new RootStore({ socketFactory: fakeSockets().factory });
    store.auth.setAccessToken('token-1');
    renderRoute('/pricing', { store });
    await screen.findByRole('heading', { level: 1, name: PRICING_TITLE });
    expect(screen.getByRole('tab', { name: TAB_PURCHASE }).getAttribute('href')).toBe('/plans');
    expect(screen.queryByRole('link', { name: LOGIN_TO_PURCHASE })).toBeNull();
  });
});
