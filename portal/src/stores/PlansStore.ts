import type { ActivityType, SubscriptionConfig, Tier } from '@exploit-grid/api/contracts';
import { PAYMENT_PROVIDERS } from '@exploit-grid/api/contracts/constants';
import { action, makeObservable, observable, observableRef, reaction, runInAction } from 'mobx';
import { serverMessageOf } from '../api/ApiError.ts';
import type { Parser } from '../api/http.ts';
import { isValidAmount } from '../components/plans/amount.ts';
import { log } from '../logging.ts';
import { toast } from '../notifications/toast.ts';
import { PURCHASE_CANCELED, PURCHASE_FAILED, PURCHASE_SUCCEEDED } from '../strings/plans.ts';
import { checkoutAnswer, checkoutTargetOf } from './checkoutTarget.ts';
import type { RootStore } from './RootStore.ts';

export type PlansConfig = SubscriptionConfig;

/**
 * GET /subscription/config (public: /pricing reads it too), read by hand to the contract's
 * `subscriptionConfigSchema` (a test holds the two together) so that /pricing's visitors download no zod.
 */
export const plansConfig: Parser<PlansConfig> = {
  parse(data) {
    const config = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
    const { provider, paymentsEnabled, basicDailyLimitMinutes, boxMinimumChargeMinutes } = config;
    const minutes = (value: unknown): value is number =>
      typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
    const providers: readonly unknown[] = PAYMENT_PROVIDERS;
    if (
      !providers.includes(provider) ||
      typeof paymentsEnabled !== 'boolean' ||
      !minutes(basicDailyLimitMinutes) ||
      !minutes(boxMinimumChargeMinutes)
    )
      throw new Error('GET /subscription/config: not a subscription config');
    return {
      provider: provider as PlansConfig['provider'],
      paymentsEnabled,
      basicDailyLimitMinutes,
      boxMinimumChargeMinutes,
    };
  },
};

export type ConfigStatus = 'idle' | 'loading' | 'ready' | 'failed';
/** What the page says about the purchase the player comes back from (`?success` / `?canceled`). */
export type PurchaseNotice = { severity: 'success' | 'info'; text: string };
/** The query of a visit: the checkout pages send players back with `success=true` or `canceled=true`. */
export type PlansVisit = { success: boolean; canceled: boolean };

/**
 * The Plans screen (commerce-and-content sections 2, 4, 7, 8): whether payments are on and through which
 * provider, starting a purchase, and the activity it logs (SUBSCRIPTIONS_VIEW on every visit,
 * PAYMENT_CANCELLED when a checkout sent the player back canceled).
 */
export class PlansStore {
  config: PlansConfig | null = null;
  configStatus: ConfigStatus = 'idle';
  /** POST /subscription/checkout is under way (and then the browser leaves for the checkout). */
  purchasing = false;
  /** Why the last purchase could not start (also toasted). */
  purchaseError: string | null = null;
  notice: PurchaseNotice | null = null;

  private readonly root: RootStore;
  /** Bumped by every enter and leave: a visit starts only if the page is still shown a moment later. */
  private visit = 0;
  private loadingConfig: Promise<void> | null = null;

  constructor(root: RootStore) {
    this.root = root;
    makeObservable<this, 'reset'>(this, {
      config: observableRef,
      configStatus: observable,
      purchasing: observable,
      purchaseError: observable,
      notice: observableRef,
      reset: action,
    });
    // Another account (or none): nothing of the previous one stays.
    reaction(
      () => this.root.auth.user?.id ?? null,
      () => this.reset(),
    );
  }

  /**
   * The signed-in Plans page is shown: log the view, read payments' configuration, and say how the purchase
   * the player comes back from went. Deferred to a microtask and dropped when `leave()` came first, so that
   * React's development double mount counts as one visit (and one PAYMENT_CANCELLED).
   */
  enter({ success, canceled }: PlansVisit): void {
    const visit = ++this.visit;
    queueMicrotask(() => {
      if (visit !== this.visit) return;
      runInAction(() => {
        this.purchaseError = null;
        this.notice = canceled
          ? { severity: 'info', text: PURCHASE_CANCELED }
          : success
            ? { severity: 'success', text: PURCHASE_SUCCEEDED }
            : null;
      });
      void this.logActivity('SUBSCRIPTIONS_VIEW');
      if (canceled) void this.logActivity('PAYMENT_CANCELLED');
      // The webhook credited before the provider sent the player back: show the new balance now.
      if (success)
        this.root.auth.loadUser().catch((error: unknown) => log.warn('Could not reload the user', error));
      void this.loadConfig();
    });
  }

  leave(): void {
    this.visit += 1;
  }

  /** GET /subscription/config; concurrent calls share one request. */
  loadConfig(): Promise<void> {
    this.loadingConfig ??= (async () => {
      runInAction(() => (this.configStatus = 'loading'));
      try {
        const config = await this.root.api.get('/subscription/config', plansConfig);
        runInAction(() => {
          this.config = config;
          this.configStatus = 'ready';
        });
      } catch (error) {
        log.warn('Could not load the payment configuration', error);
        runInAction(() => (this.configStatus = 'failed'));
      }
    })().finally(() => (this.loadingConfig = null));
    return this.loadingConfig;
  }

  /**
   * POST /subscription/checkout {amount, tier}, then to the provider's checkout: Stripe's hosted page, or our
   * /checkout/paddle page (a document of its own: it alone may load Paddle.js). Failures say the server's
   * message, else 'Failed to start purchase.', or the provider's own message (spec section 8).
   */
  async startPurchase(amount: number, tier: Tier): Promise<void> {
    if (this.purchasing || !isValidAmount(amount) || this.config?.paymentsEnabled !== true) return;
    runInAction(() => {
      this.purchasing = true;
      this.purchaseError = null;
    });
    let failure: string;
    try {
      const answer = await this.root.api.post('/subscription/checkout', checkoutAnswer, {
        body: { amount, tier },
      });
      const target = checkoutTargetOf(answer, window.location.origin);
      if ('url' in target) {
        this.root.assignLocation(target.url);
        runInAction(() => (this.purchasing = false));
        return;
      }
      failure = target.error;
    } catch (error) {
      log.warn('Could not start a purchase', error);
      failure = serverMessageOf(error) ?? PURCHASE_FAILED;
    }
    runInAction(() => {
      this.purchasing = false;
      this.purchaseError = failure;
    });
    toast.error(failure);
  }

  /** POST /user-activity/log; a failure is only logged. */
  async logActivity(activityType: ActivityType): Promise<void> {
    try {
      await this.root.api.send('POST', '/user-activity/log', { body: { activityType } });
    } catch (error) {
      log.warn(`Could not log ${activityType}`, error);
    }
  }

  private reset() {
    this.config = null;
    this.configStatus = 'idle';
    this.purchasing = false;
    this.purchaseError = null;
    this.notice = null;
  }
}
