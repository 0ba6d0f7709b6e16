import type { LedgerEntryView, SubscriptionConfig } from '@exploit-grid/api/contracts';
import { reply } from './fakeApi.ts';

/** GET /subscription/config of a platform with Stripe keys. */
export const stripeConfig: SubscriptionConfig = {
  provider: 'stripe',
  paymentsEnabled: true,
  basicDailyLimitMinutes: 60,
  boxMinimumChargeMinutes: 5,
};
/** GET /subscription/config of a platform without payment keys (`make run` on a fresh machine). */
export const noPaymentsConfig: SubscriptionConfig = {
  provider: 'stripe',
  paymentsEnabled: false,
  basicDailyLimitMinutes: 60,
  boxMinimumChargeMinutes: 5,
};

/** The routes every Plans page visit calls. */
export const plansRoutes = (config: object = stripeConfig) => ({
  'GET /subscription/config': reply(200, config),
  'POST /user-activity/log': reply(204),
});

/** `count` ledger rows, newest first, balances going down from 100 credits by box time. */
export function ledgerRows(count: number, first = 0): LedgerEntryView[] {
  return Array.from({ length: count }, (_, index) => {
    const n = first + index;
    return {
      id: `entry-${n}`,
      createdAt: new Date(Date.UTC(2026, 2, 1, 12, 0) - n * 3_600_000).toISOString(),
      reason: 'BOX_TIME',
      description: `Box time (${n + 1} min)`,
      creditsDelta: 0,
      freeCreditsDelta: -0.67,
      credits: 0,
      freeCredits: Number((100 - (n + 1) * 0.67).toFixed(2)),
    };
  });
}
