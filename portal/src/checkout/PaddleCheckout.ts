import type { PaymentStatus } from '@exploit-grid/api/contracts';
import { action, makeObservable, observable } from 'mobx';
import { log } from '../logging.ts';
import {
  CHECKOUT_INIT_FAILED,
  CHECKOUT_MISSING,
  PADDLE_LOAD_FAILED,
  PAYMENT_CANCELLED,
  PAYMENT_COMPLETED,
  checkoutError,
  paymentSucceeded,
} from '../strings/checkout.ts';
import { ERROR_RETURN_PATH, type CheckoutParams, type PaddleEnvironment } from './params.ts';

/** What the status screen shows. `open` is the quiet page behind Paddle's overlay once initializing hides. */
export type CheckoutPhase = 'initializing' | 'open' | 'checking' | 'success' | 'cancelled' | 'error';

// Timings of commerce-and-content sections 4 and 9.
export const INITIALIZING_MAX_MS = 2000;
export const VERIFY_ATTEMPTS = 6;
export const VERIFY_FIRST_DELAY_MS = 1000;
export const VERIFY_DELAY_STEP_MS = 500;
export const VERIFY_MAX_DELAY_MS = 3000;
export const SUCCESS_REDIRECT_MS = 2000;
export const CANCEL_REDIRECT_MS = 1500;
export const ERROR_REDIRECT_MS = 5000;
export const FRAME_POLL_MS = 1000;
export const FRAME_MAX_POLLS = 300;
export const FRAME_MISSES_TO_CLOSE = 2;

/** The wait before verification attempt `attempt` (0-based): 1000, 1500, 2000, 2500, 3000, 3000 ms. */
export const verifyDelayMs = (attempt: number) =>
  Math.min(VERIFY_FIRST_DELAY_MS + VERIFY_DELAY_STEP_MS * attempt, VERIFY_MAX_DELAY_MS);

/** Payment counts as confirmed when success is true and creditsAdded is above 0. */
export const isConfirmed = (status: PaymentStatus | null): status is PaymentStatus =>
  status !== null && status.success && status.creditsAdded > 0;

/** A checkout event as Paddle.js reports it: 'checkout.loaded', 'checkout.completed', ... */
export type PaddleEvent = { name?: string; detail?: string };

/** What Paddle.Checkout.open gets (the loader turns it into Paddle's options). */
export type CheckoutOpenRequest = {
  transactionId: string | null;
  priceId: string | null;
  email: string;
  customData: { sessionId: string | null; userId: string | null; requestedAmountCents: number };
};

/** Paddle.js, loaded and initialized. */
export interface PaddleCheckout {
  /** False when the loaded library will not call the event callback: the frame fallback watches instead. */
  readonly eventsSupported: boolean;
  open(request: CheckoutOpenRequest): void;
}

/** Loads Paddle.js (from Paddle's CDN in the app); null or a rejection when it could not be loaded. */
export interface PaddleLoader {
  load(options: {
    environment: PaddleEnvironment;
    token: string;
    onEvent: (event: PaddleEvent) => void;
  }): Promise<PaddleCheckout | null>;
}

/** The checkout's frame in the page, for the fallback that watches it vanish. */
export interface CheckoutFrame {
  present(): boolean;
  /** Calls `listener` on window focus, blur and visibility change; returns the unsubscribe. */
  onActivity(listener: () => void): () => void;
}

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface Notifier {
  success(message: string): void;
  info(message: string): void;
  error(message: string): void;
}

export type PaddleCheckoutDeps = {
  loader: PaddleLoader;
  /** GET /subscription/payment-status. */
  verify: (query: { sessionId: string; initialCredits: number | null }) => Promise<PaymentStatus>;
  /** The player's credits before paying (from GET /users/me), sent along with each verification. */
  startingCredits: () => Promise<number | null>;
  userId: string | null;
  notify: Notifier;
  /** Leaves the page: an absolute URL on this site, or a path. */
  redirect: (url: string) => void;
  frame: CheckoutFrame;
  /** The global timers by default (looked up at call time, so fake timers apply). */
  timers?: Timers;
};

const globalTimers: Timers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

type FrameWatch = { polls: number; misses: number; timer: unknown; stopActivity: () => void };

/**
 * The Paddle checkout page as a state machine (commerce-and-content section 4, 'Checkout page'):
 *
 * - initializing: Paddle.js loads and the checkout opens for the transaction; this state hides when the
 *   checkout reports it loaded, or after 2 s.
 * - checkout.completed: one verification, then success ('Payment successful! Added {n} credits to your
 *   account.' when confirmed, else 'Payment completed successfully!') and the success URL after 2 s.
 * - checkout.closed without completion: up to 6 verifications, waiting 1000 ms before the first and 500 ms
 *   more before each next one (at most 3000 ms); confirmed is success, otherwise 'Payment cancelled' and the
 *   cancel URL after 1.5 s.
 * - checkout.error, or Paddle.js failing to load or open: the error toast and screen, /plans after 5 s.
 * - Once a payment is processed, later close events are ignored; success, cancelled and error are final.
 * - When Paddle.js will not report events, the checkout frame is watched instead: a check every second (at
 *   most 300) and on window focus, blur and visibility change; two misses in a row mean it closed.
 */
export class PaddleCheckoutMachine {
  phase: CheckoutPhase = 'initializing';
  /** The toast the final state showed (the screen says it too). */
  message: string | null = null;

  private readonly params: CheckoutParams | null;
  private readonly deps: PaddleCheckoutDeps;
  private readonly timers: Timers;
  private readonly pending = new Set<unknown>();
  private started = false;
  private disposed = false;
  /** A completion was reported or a verification confirmed the payment. */
  private processed = false;
  private initialCredits: number | null = null;
  private watch: FrameWatch | null = null;

  constructor(params: CheckoutParams | null, deps: PaddleCheckoutDeps) {
    this.params = params;
    this.deps = deps;
    this.timers = deps.timers ?? globalTimers;
    makeObservable<this, 'enterPhase'>(this, {
      phase: observable,
      message: observable,
      enterPhase: action,
    });
  }

  /** Success, cancelled and error end the page; nothing changes them. */
  get finished(): boolean {
    return this.phase === 'success' || this.phase === 'cancelled' || this.phase === 'error';
  }

  async start(): Promise<void> {
    if (this.started || this.disposed) return;
    this.started = true;
    const params = this.params;
    if (!params) {
      this.fail(CHECKOUT_MISSING);
      return;
    }
    this.after(INITIALIZING_MAX_MS, () => this.checkoutShown());
    const credits = this.deps.startingCredits().catch((error: unknown) => {
      log.warn('Could not read the starting credits', error);
      return null;
    });
    let checkout: PaddleCheckout | null = null;
    try {
      checkout = await this.deps.loader.load({
        environment: params.environment,
        token: params.clientToken,
        onEvent: this.onEvent,
      });
    } catch (error) {
      log.warn('Could not load Paddle.js', error);
    }
    if (this.stopped) return;
    if (!checkout) {
      this.fail(PADDLE_LOAD_FAILED);
      return;
    }
    this.initialCredits = await credits;
    if (this.stopped) return;
    try {
      checkout.open({
        transactionId: params.transactionId,
        priceId: params.priceId,
        email: params.customerEmail,
        customData: {
          sessionId: params.sessionId,
          userId: this.deps.userId,
          requestedAmountCents: Math.round(params.amount * 100),
        },
      });
    } catch (error) {
      log.warn('Could not open the Paddle checkout', error);
      this.fail(CHECKOUT_INIT_FAILED);
      return;
    }
    if (!checkout.eventsSupported) this.watchFrame();
  }

  /** The page is gone: no timer fires, no redirect happens, no event counts any more. */
  dispose(): void {
    this.disposed = true;
    this.stopWatching();
    for (const handle of this.pending) this.timers.clearTimeout(handle);
    this.pending.clear();
  }

  /** Paddle.js's event callback. */
  readonly onEvent = (event: PaddleEvent): void => {
    if (this.stopped) return;
    switch (event.name) {
      case 'checkout.loaded':
        this.checkoutShown();
        break;
      case 'checkout.completed':
        void this.completed();
        break;
      case 'checkout.closed':
        void this.closed();
        break;
      case 'checkout.error':
        this.fail(checkoutError(event.detail));
        break;
    }
  };

  private get stopped(): boolean {
    return this.disposed || this.finished;
  }

  private checkoutShown() {
    if (this.phase === 'initializing') this.enterPhase('open');
  }

  private async completed(): Promise<void> {
    if (this.processed || this.stopped) return;
    this.processed = true;
    this.stopWatching();
    this.enterPhase('checking');
    const status = await this.verifyOnce();
    if (this.stopped) return;
    this.succeed(isConfirmed(status) ? status : null);
  }

  private async closed(): Promise<void> {
    // Processed: the close of a checkout that completed. Checking: a close already being verified.
    if (this.processed || this.stopped || this.phase === 'checking') return;
    this.stopWatching();
    this.enterPhase('checking');
    for (let attempt = 0; attempt < VERIFY_ATTEMPTS; attempt++) {
      await this.delay(verifyDelayMs(attempt));
      if (this.processed || this.stopped) return;
      const status = await this.verifyOnce();
      if (this.processed || this.stopped) return;
      if (isConfirmed(status)) {
        this.processed = true;
        this.succeed(status);
        return;
      }
    }
    this.cancel();
  }

  /** One GET /subscription/payment-status; null when it failed or there is no id to ask about. */
  private async verifyOnce(): Promise<PaymentStatus | null> {
    const sessionId = this.params?.sessionId ?? this.params?.transactionId ?? null;
    if (!sessionId) return null;
    try {
      return await this.deps.verify({ sessionId, initialCredits: this.initialCredits });
    } catch (error) {
      log.warn('Could not verify the payment', error);
      return null;
    }
  }

  private succeed(status: PaymentStatus | null) {
    const message = status ? paymentSucceeded(status.creditsAdded) : PAYMENT_COMPLETED;
    this.enterPhase('success', message);
    this.deps.notify.success(message);
    const to = this.params?.successUrl;
    if (to) this.after(SUCCESS_REDIRECT_MS, () => this.deps.redirect(to));
  }

  private cancel() {
    this.enterPhase('cancelled', PAYMENT_CANCELLED);
    this.deps.notify.info(PAYMENT_CANCELLED);
    const to = this.params?.cancelUrl;
    if (to) this.after(CANCEL_REDIRECT_MS, () => this.deps.redirect(to));
  }

  private fail(message: string) {
    if (this.stopped) return;
    this.stopWatching();
    this.enterPhase('error', message);
    this.deps.notify.error(message);
    this.after(ERROR_REDIRECT_MS, () => this.deps.redirect(ERROR_RETURN_PATH));
  }

  private enterPhase(phase: CheckoutPhase, message: string | null = null) {
    this.phase = phase;
    this.message = message;
  }

  // The frame fallback.

  private watchFrame() {
    const watch: FrameWatch = { polls: 0, misses: 0, timer: null, stopActivity: () => undefined };
    this.watch = watch;
    watch.stopActivity = this.deps.frame.onActivity(() => this.checkFrame());
    const poll = () => {
      watch.timer = this.after(FRAME_POLL_MS, () => {
        if (this.watch !== watch) return;
        watch.polls += 1;
        this.checkFrame();
        if (this.watch !== watch) return;
        // After 5 minutes the page stops watching: the checkout may still be open, and its webhook still
        // credits; the page keeps its way back to Plans.
        if (watch.polls < FRAME_MAX_POLLS) poll();
        else this.stopWatching();
      });
    };
    poll();
  }

  private checkFrame() {
    const watch = this.watch;
    if (!watch || this.stopped) return;
    if (this.deps.frame.present()) {
      watch.misses = 0;
      return;
    }
    watch.misses += 1;
    if (watch.misses < FRAME_MISSES_TO_CLOSE) return;
    this.stopWatching();
    void this.closed();
  }

  private stopWatching() {
    const watch = this.watch;
    if (!watch) return;
    this.watch = null;
    watch.stopActivity();
    if (watch.timer !== null) {
      this.timers.clearTimeout(watch.timer);
      this.pending.delete(watch.timer);
    }
  }

  // Timers that die with the page.

  private after(ms: number, callback: () => void): unknown {
    const handle = this.timers.setTimeout(() => {
      this.pending.delete(handle);
      if (!this.disposed) callback();
    }, ms);
    this.pending.add(handle);
    return handle;
  }

  private delay(ms: number): Promise<void> {
    return new Promise((resolve) => this.after(ms, resolve));
  }
}
