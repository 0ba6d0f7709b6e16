import type { PaymentStatus } from '@exploit-grid/api/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CHECKOUT_INIT_FAILED,
  CHECKOUT_MISSING,
  PADDLE_LOAD_FAILED,
  PAYMENT_CANCELLED,
  PAYMENT_COMPLETED,
  checkoutError,
  paymentSucceeded,
} from '../strings/checkout.ts';
import {
  FRAME_MAX_POLLS,
  PaddleCheckoutMachine,
  verifyDelayMs,
  type CheckoutOpenRequest,
  type PaddleCheckoutDeps,
  type PaddleEvent,
} from './PaddleCheckout.ts';
import { parseCheckoutParams, type CheckoutParams } from './params.ts';

const ORIGIN = 'https://grid.example';

/** The query our server puts on /checkout/paddle for a $20 purchase. */
function params(overrides: Record<string, string | null> = {}): CheckoutParams | null {
  const query = new URLSearchParams();
  const values: Record<string, string | null> = {
    clientToken: 'test_client_token',
    transactionId: 'txn_01',
    customerEmail: 'zero@example.com',
    amount: '20',
    sessionId: 'purchase-1',
    successUrl: '/plans?success=true',
    cancelUrl: '/plans?canceled=true',
    ...overrides,
  };
  for (const [key, value] of Object.entries(values)) if (value !== null) query.set(key, value);
  return parseCheckoutParams(query, ORIGIN);
}

const unpaid: PaymentStatus = { success: false, creditsAdded: 0, currentCredits: 12.5 };
const paid: PaymentStatus = { success: true, creditsAdded: 2000, currentCredits: 2012.5 };

/** A checkout with fakes for Paddle.js, the payment-status call, toasts, navigation and the frame. */
function checkout(
  options: {
    params?: CheckoutParams | null;
    load?: 'ok' | 'missing' | 'rejects';
    eventsSupported?: boolean;
    openThrows?: boolean;
    statuses?: (PaymentStatus | Error)[];
  } = {},
) {
  let emit: (event: PaddleEvent) => void = () => undefined;
  const opened: CheckoutOpenRequest[] = [];
  const loaded: { environment: string; token: string }[] = [];
  const statuses = [...(options.statuses ?? [])];
  const verify = vi.fn(async (_query: { sessionId: string; initialCredits: number | null }) => {
    const next = statuses.length > 1 ? statuses.shift()! : (statuses[0] ?? unpaid);
    if (next instanceof Error) throw next;
    return next;
  });
  const frame = { shown: true, listeners: new Set<() => void>() };
  const toasts: string[] = [];
  const redirects: string[] = [];
  const deps: PaddleCheckoutDeps = {
    loader: {
      load: async ({ environment, token, onEvent }) => {
        loaded.push({ environment, token });
        emit = onEvent;
        if (options.load === 'rejects') throw new Error('network');
        if (options.load === 'missing') return null;
        return {
          eventsSupported: options.eventsSupported ?? true,
          open: (request) => {
            if (options.openThrows) throw new Error('bad token');
            opened.push(request);
          },
        };
      },
    },
    verify,
    startingCredits: async () => 12.5,
    userId: 'user-1',
    notify: {
      success: (message) => toasts.push(`success:${message}`),
      info: (message) => toasts.push(`info:${message}`),
      error: (message) => toasts.push(`error:${message}`),
    },
    redirect: (url) => redirects.push(url),
    frame: {
      present: () => frame.shown,
      onActivity: (listener) => {
        frame.listeners.add(listener);
        return () => frame.listeners.delete(listener);
      },
    },
  };
  const machine = new PaddleCheckoutMachine(options.params === undefined ? params() : options.params, deps);
  return {
    machine,
    verify,
    opened,
    loaded,
    toasts,
    redirects,
    frame,
    /** Paddle.js reports an event. */
    emit: (name: string, detail?: string) => emit({ name, detail }),
    /** Window focus, blur or visibility change. */
    activity: () => frame.listeners.forEach((listener) => listener()),
    async start() {
      await machine.start();
      await vi.advanceTimersByTimeAsync(0);
    },
  };
}

/** Time passes and every promise it settles runs. */
const wait = (ms: number) => vi.advanceTimersByTimeAsync(ms);

beforeEach(() => {
  vi.useFakeTimers();
  // Failed loads and verifications are logged for the browser console.
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Paddle checkout: opening', () => {
  it('loads Paddle.js for the environment and token, then opens the transaction with email and custom data', async () => {
    const c = checkout();
    await c.start();
    expect(c.loaded).toEqual([{ environment: 'sandbox', token: 'test_client_token' }]);
    expect(c.opened).toEqual([
      {
        transactionId: 'txn_01',
        priceId: null,
        email: 'zero@example.com',
        customData: { sessionId: 'purchase-1', userId: 'user-1', requestedAmountCents: 2000 },
      },
    ]);
  });

  it('uses the production environment only when the address says so', async () => {
    const c = checkout({ params: params({ environment: 'production' }) });
    await c.start();
    expect(c.loaded[0]?.environment).toBe('production');
  });

  it('is initializing until the checkout reports it loaded', async () => {
    const c = checkout();
    await c.start();
    expect(c.machine.phase).toBe('initializing');
    c.emit('checkout.loaded');
    expect(c.machine.phase).toBe('open');
  });

  it('stops initializing after 2 s even when the checkout never reports it loaded', async () => {
    const c = checkout();
    await c.start();
    await wait(1999);
    expect(c.machine.phase).toBe('initializing');
    await wait(1);
    expect(c.machine.phase).toBe('open');
  });

  it.each([
    ['clientToken', { clientToken: null }],
    ['customerEmail', { customerEmail: null }],
    ['amount', { amount: null }],
    ['a number as amount', { amount: 'twenty' }],
    ['priceId or transactionId', { transactionId: null }],
  ])(
    'refuses a checkout without %s: Missing required checkout parameters, /plans after 5 s',
    async (_what, missing) => {
      const c = checkout({ params: params(missing) });
      await c.start();
      expect(c.loaded).toHaveLength(0);
      expect(c.machine.phase).toBe('error');
      expect(c.machine.message).toBe(CHECKOUT_MISSING);
      expect(c.toasts).toEqual([`error:${CHECKOUT_MISSING}`]);
      await wait(4999);
      expect(c.redirects).toEqual([]);
      await wait(1);
      expect(c.redirects).toEqual(['/plans']);
    },
  );

  it('opens a price instead of a transaction when only priceId is given', async () => {
    const c = checkout({ params: params({ transactionId: null, priceId: 'pri_01' }) });
    await c.start();
    expect(c.opened[0]).toMatchObject({ transactionId: null, priceId: 'pri_01' });
  });

  it('says Failed to load Paddle.js when the script cannot be loaded, and returns to /plans after 5 s', async () => {
    for (const load of ['missing', 'rejects'] as const) {
      const c = checkout({ load });
      await c.start();
      expect(c.machine.phase).toBe('error');
      expect(c.toasts).toEqual([`error:${PADDLE_LOAD_FAILED}`]);
      await wait(5000);
      expect(c.redirects).toEqual(['/plans']);
    }
  });

  it('says Failed to initialize checkout when Paddle refuses to open it', async () => {
    const c = checkout({ openThrows: true });
    await c.start();
    expect(c.machine.phase).toBe('error');
    expect(c.machine.message).toBe(CHECKOUT_INIT_FAILED);
    expect(c.toasts).toEqual([`error:${CHECKOUT_INIT_FAILED}`]);
  });
});

describe('Paddle checkout: completed', () => {
  it('verifies once; a confirmed payment toasts the credits added and goes to the success URL after 2 s', async () => {
    const c = checkout({ statuses: [paid] });
    await c.start();
    c.emit('checkout.completed');
    await wait(0);
    expect(c.verify).toHaveBeenCalledTimes(1);
    expect(c.verify).toHaveBeenCalledWith({ sessionId: 'purchase-1', initialCredits: 12.5 });
    expect(c.machine.phase).toBe('success');
    expect(c.toasts).toEqual([`success:${paymentSucceeded(2000)}`]);
    expect(c.toasts[0]).toBe('success:Payment successful! Added 2000 credits to your account.');
    await wait(1999);
    expect(c.redirects).toEqual([]);
    await wait(1);
    expect(c.redirects).toEqual([`${ORIGIN}/plans?success=true`]);
  });

  it('is a success even before the webhook landed: Payment completed successfully!', async () => {
    for (const status of [
      unpaid,
      { success: true, creditsAdded: 0, currentCredits: 12.5 },
      new Error('503'),
    ]) {
      const c = checkout({ statuses: [status] });
      await c.start();
      c.emit('checkout.completed');
      await wait(0);
      expect(c.machine.phase).toBe('success');
      expect(c.toasts).toEqual([`success:${PAYMENT_COMPLETED}`]);
    }
  });

  it('ignores the close that follows a completed checkout', async () => {
    const c = checkout({ statuses: [paid] });
    await c.start();
    c.emit('checkout.completed');
    await wait(0);
    c.emit('checkout.closed');
    await wait(30_000);
    expect(c.verify).toHaveBeenCalledTimes(1);
    expect(c.machine.phase).toBe('success');
    expect(c.redirects).toEqual([`${ORIGIN}/plans?success=true`]);
  });

  it('falls back to /plans?success=true when the success URL leads to another site', async () => {
    const c = checkout({ params: params({ successUrl: 'https://evil.example/phish' }), statuses: [paid] });
    await c.start();
    c.emit('checkout.completed');
    await wait(2000);
    expect(c.redirects).toEqual([`${ORIGIN}/plans?success=true`]);
  });

  it('asks about the transaction when the address has no session id', async () => {
    const c = checkout({ params: params({ sessionId: null }), statuses: [paid] });
    await c.start();
    c.emit('checkout.completed');
    await wait(0);
    expect(c.verify).toHaveBeenCalledWith({ sessionId: 'txn_01', initialCredits: 12.5 });
  });
});

describe('Paddle checkout: closed without completing', () => {
  it('verifies 6 times, waiting 1000, 1500, 2000, 2500, 3000 and 3000 ms, then cancels', async () => {
    expect([0, 1, 2, 3, 4, 5].map(verifyDelayMs)).toEqual([1000, 1500, 2000, 2500, 3000, 3000]);
    const c = checkout({ statuses: [unpaid] });
    await c.start();
    c.emit('checkout.closed');
    expect(c.machine.phase).toBe('checking');
    let elapsed = 0;
    for (const [attempt, delay] of [1000, 1500, 2000, 2500, 3000, 3000].entries()) {
      await wait(delay - 1);
      expect(c.verify, `before attempt ${attempt + 1}`).toHaveBeenCalledTimes(attempt);
      await wait(1);
      expect(c.verify, `attempt ${attempt + 1}`).toHaveBeenCalledTimes(attempt + 1);
      elapsed += delay;
    }
    expect(elapsed).toBe(13_000);
    expect(c.machine.phase).toBe('cancelled');
    expect(c.toasts).toEqual([`info:${PAYMENT_CANCELLED}`]);
  });

  it('goes to the cancel URL 1.5 s after cancelling', async () => {
    const c = checkout({ statuses: [unpaid] });
    await c.start();
    c.emit('checkout.closed');
    await wait(13_000);
    expect(c.machine.phase).toBe('cancelled');
    await wait(1499);
    expect(c.redirects).toEqual([]);
    await wait(1);
    expect(c.redirects).toEqual([`${ORIGIN}/plans?canceled=true`]);
  });

  it('falls back to /plans?canceled=true without a cancel URL', async () => {
    const c = checkout({ params: params({ cancelUrl: null }), statuses: [unpaid] });
    await c.start();
    c.emit('checkout.closed');
    await wait(13_000 + 1500);
    expect(c.redirects).toEqual([`${ORIGIN}/plans?canceled=true`]);
  });

  it('succeeds at the attempt that finds the payment confirmed, and stops asking', async () => {
    const c = checkout({ statuses: [unpaid, new Error('503'), { ...paid, creditsAdded: 500 }] });
    await c.start();
    c.emit('checkout.closed');
    await wait(1000 + 1500 + 2000);
    expect(c.verify).toHaveBeenCalledTimes(3);
    expect(c.machine.phase).toBe('success');
    expect(c.toasts).toEqual([`success:${paymentSucceeded(500)}`]);
    await wait(20_000);
    expect(c.verify).toHaveBeenCalledTimes(3);
    expect(c.redirects).toEqual([`${ORIGIN}/plans?success=true`]);
  });

  it('does not count success without credits added as confirmed', async () => {
    const c = checkout({ statuses: [{ success: true, creditsAdded: 0, currentCredits: 12.5 }] });
    await c.start();
    c.emit('checkout.closed');
    await wait(13_000);
    expect(c.machine.phase).toBe('cancelled');
  });

  it('verifies one close at a time: a second close while checking changes nothing', async () => {
    const c = checkout({ statuses: [unpaid] });
    await c.start();
    c.emit('checkout.closed');
    await wait(500);
    c.emit('checkout.closed');
    await wait(13_000);
    expect(c.verify).toHaveBeenCalledTimes(6);
    expect(c.toasts).toEqual([`info:${PAYMENT_CANCELLED}`]);
  });

  it('takes a completion reported while it checks a close, and cancels nothing', async () => {
    const c = checkout({ statuses: [unpaid, unpaid, paid] });
    await c.start();
    c.emit('checkout.closed');
    await wait(1000);
    c.emit('checkout.completed');
    await wait(0);
    expect(c.machine.phase).toBe('success');
    await wait(20_000);
    expect(c.verify).toHaveBeenCalledTimes(2);
    expect(c.toasts).toHaveLength(1);
  });
});

describe('Paddle checkout: errors and the end of the page', () => {
  it('shows Checkout error: {message} and returns to /plans after 5 s', async () => {
    const c = checkout();
    await c.start();
    c.emit('checkout.error', 'Transaction is already paid');
    expect(c.machine.phase).toBe('error');
    expect(c.toasts).toEqual([`error:${checkoutError('Transaction is already paid')}`]);
    expect(c.toasts[0]).toBe('error:Checkout error: Transaction is already paid');
    await wait(5000);
    expect(c.redirects).toEqual(['/plans']);
  });

  it('says Unknown error when the error event has no message', async () => {
    const c = checkout();
    await c.start();
    c.emit('checkout.error');
    expect(c.machine.message).toBe('Checkout error: Unknown error');
  });

  it('keeps a final state: no event after success, cancel or error changes it', async () => {
    const c = checkout({ statuses: [paid] });
    await c.start();
    c.emit('checkout.completed');
    await wait(0);
    c.emit('checkout.error', 'late');
    c.emit('checkout.closed');
    await wait(10_000);
    expect(c.machine.phase).toBe('success');
    expect(c.toasts).toHaveLength(1);
    expect(c.redirects).toHaveLength(1);
  });

  it('does nothing more once disposed: no redirect, no verification', async () => {
    const c = checkout({ statuses: [paid] });
    await c.start();
    c.emit('checkout.closed');
    c.machine.dispose();
    await wait(60_000);
    expect(c.verify).not.toHaveBeenCalled();
    expect(c.redirects).toEqual([]);
  });
});

describe('Paddle checkout: the frame fallback without events', () => {
  it('watches the frame every second; two misses in a row mean closed, then it verifies', async () => {
    const c = checkout({ eventsSupported: false, statuses: [unpaid] });
    await c.start();
    await wait(3000);
    expect(c.machine.phase).toBe('open');
    c.frame.shown = false;
    await wait(1000);
    expect(c.machine.phase).toBe('open');
    await wait(1000);
    expect(c.machine.phase).toBe('checking');
    await wait(13_000);
    expect(c.verify).toHaveBeenCalledTimes(6);
    expect(c.machine.phase).toBe('cancelled');
  });

  it('starts counting again when the frame is back', async () => {
    const c = checkout({ eventsSupported: false });
    await c.start();
    c.frame.shown = false;
    await wait(1000);
    c.frame.shown = true;
    await wait(1000);
    c.frame.shown = false;
    await wait(1000);
    expect(c.machine.phase).not.toBe('checking');
    await wait(1000);
    expect(c.machine.phase).toBe('checking');
  });

  it('checks on window focus, blur and visibility change too', async () => {
    const c = checkout({ eventsSupported: false, statuses: [paid] });
    await c.start();
    c.frame.shown = false;
    c.activity();
    expect(c.machine.phase).not.toBe('checking');
    c.activity();
    expect(c.machine.phase).toBe('checking');
    await wait(1000);
    expect(c.machine.phase).toBe('success');
  });

  it('stops watching after 300 checks (5 minutes), leaving the page as it is', async () => {
    const c = checkout({ eventsSupported: false });
    await c.start();
    await wait(FRAME_MAX_POLLS * 1000);
    expect(c.frame.listeners.size).toBe(0);
    c.frame.shown = false;
    await wait(10_000);
    expect(c.machine.phase).toBe('open');
    expect(c.verify).not.toHaveBeenCalled();
  });

  it('does not watch the frame when Paddle.js reports events', async () => {
    const c = checkout({ eventsSupported: true });
    await c.start();
    c.frame.shown = false;
    await wait(5000);
    expect(c.machine.phase).toBe('open');
    expect(c.frame.listeners.size).toBe(0);
  });
});
