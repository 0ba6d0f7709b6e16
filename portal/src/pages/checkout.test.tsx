import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../notifications/toast.ts';
import {
  CHECKOUT_CHECKING,
  CHECKOUT_ERROR,
  CHECKOUT_INITIALIZING,
  CHECKOUT_MISSING,
  CHECKOUT_OPEN,
  CHECKOUT_SUCCESS,
  PADDLE_LOAD_FAILED,
} from '../strings/checkout.ts';
import { PLANS_TITLE, PURCHASE_SUCCEEDED } from '../strings/plans.ts';
import { plansRoutes } from '../testing/commerce.ts';
import { deferred, reply, testUser, type FakeReply } from '../testing/fakeApi.ts';
import { locationOf, renderSignedIn } from '../test-utils.tsx';

// Paddle.js itself comes from Paddle's CDN: the wrapper is replaced by a fake Paddle that records what it is asked.
const paddle = vi.hoisted(() => ({
  initializePaddle: vi.fn(),
  instance: { Initialized: true, Checkout: { open: vi.fn() } },
}));
vi.mock('@paddle/paddle-js', () => ({ initializePaddle: paddle.initializePaddle }));

// Each test renders the whole signed-in shell and a lazily loaded page: slow on a loaded two-core machine.
vi.setConfig({ testTimeout: 20_000 });

type PaddleOptions = { environment: string; token: string; eventCallback: (event: { name: string }) => void };

const query = new URLSearchParams({
  clientToken: 'test_client_token',
  transactionId: 'txn_01',
  customerEmail: testUser.email,
  amount: '20',
  sessionId: 'purchase-1',
  successUrl: '/plans?success=true',
  cancelUrl: '/plans?canceled=true',
}).toString();

async function checkoutPage(
  path = `/checkout/paddle?${query}`,
  routes: Parameters<typeof renderSignedIn>[1] = {},
) {
  const rendered = renderSignedIn(path, { ...plansRoutes(), ...routes });
  await screen.findByRole('heading', { level: 1 });
  return rendered;
}

/** The status screen (the toasts say the same texts elsewhere on the page). */
const statusScreen = () => within(document.querySelector<HTMLElement>('[data-phase]')!);

/** The options the page initialized Paddle.js with. */
const initialized = () => paddle.initializePaddle.mock.calls[0]![0] as PaddleOptions;

beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  paddle.initializePaddle.mockReset();
  paddle.instance.Checkout.open.mockReset();
  paddle.initializePaddle.mockResolvedValue(paddle.instance);
});

describe('Checkout /checkout/paddle', () => {
  it('initializes Paddle.js with the environment and token, and opens the transaction for the player', async () => {
    await checkoutPage();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(CHECKOUT_INITIALIZING);
    await waitFor(() => expect(paddle.instance.Checkout.open).toHaveBeenCalledTimes(1));
    expect(initialized()).toMatchObject({ environment: 'sandbox', token: 'test_client_token' });
    expect(paddle.instance.Checkout.open).toHaveBeenCalledWith({
      transactionId: 'txn_01',
      customer: { email: testUser.email },
      customData: { sessionId: 'purchase-1', userId: testUser.id, requestedAmountCents: 2000 },
      // No discount field: a code typed there would pay less than the purchase.
      settings: { displayMode: 'overlay', theme: 'dark', showAddDiscounts: false },
    });
    initialized().eventCallback({ name: 'checkout.loaded' });
    expect(await screen.findByRole('heading', { level: 1, name: CHECKOUT_OPEN })).toBeTruthy();
  });

  it('verifies a completed checkout with the starting credits, toasts, and goes to the success URL after 2 s', async () => {
    const status = deferred<FakeReply>();
    const success = vi.spyOn(toast, 'success');
    const { api, router } = await checkoutPage(undefined, {
      'GET /subscription/payment-status': () => status.promise,
    });
    await waitFor(() => expect(paddle.instance.Checkout.open).toHaveBeenCalled());
    initialized().eventCallback({ name: 'checkout.completed' });
    expect(await screen.findByRole('heading', { level: 1, name: CHECKOUT_CHECKING })).toBeTruthy();
    expect(api.calls.at(-1)?.path).toBe(
      '/subscription/payment-status?sessionId=purchase-1&initialCredits=12.5',
    );
    status.resolve(reply(200, { success: true, creditsAdded: 2000, currentCredits: 2012.5 }));
    expect(await screen.findByRole('heading', { level: 1, name: CHECKOUT_SUCCESS })).toBeTruthy();
    expect(success).toHaveBeenCalledWith('Payment successful! Added 2000 credits to your account.');
    expect(locationOf(router)).toMatch(/^\/checkout\/paddle/);
    await waitFor(() => expect(locationOf(router)).toBe('/plans'), { timeout: 6000 });
    expect(await screen.findByRole('heading', { level: 1, name: PLANS_TITLE })).toBeTruthy();
    expect(screen.getByText(PURCHASE_SUCCEEDED)).toBeTruthy();
  });

  it('refuses an address without the required parameters, without loading Paddle.js', async () => {
    const error = vi.spyOn(toast, 'error');
    await checkoutPage('/checkout/paddle?transactionId=txn_01');
    expect(await screen.findByRole('heading', { level: 1, name: CHECKOUT_ERROR })).toBeTruthy();
    expect(statusScreen().getByText(CHECKOUT_MISSING)).toBeTruthy();
    expect(error).toHaveBeenCalledWith(CHECKOUT_MISSING);
    expect(paddle.initializePaddle).not.toHaveBeenCalled();
  });

  it('says Failed to load Paddle.js when the script does not come', async () => {
    paddle.initializePaddle.mockResolvedValue(undefined);
    await checkoutPage();
    expect(await screen.findByRole('heading', { level: 1, name: CHECKOUT_ERROR })).toBeTruthy();
    expect(statusScreen().getByText(PADDLE_LOAD_FAILED)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Plans' }).getAttribute('href')).toBe('/plans');
  });
});
