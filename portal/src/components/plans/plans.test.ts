import { describe, expect, it } from 'vitest';
import { checkoutTargetOf } from '../../stores/checkoutTarget.ts';
import {
  CHANGE_TIER,
  CURRENT_TIER,
  PADDLE_FAILED,
  STRIPE_FAILED,
  UPGRADE_TIER,
} from '../../strings/plans.ts';
import { creditsFor, parseAmount } from './amount.ts';
import { tierButtonOf } from './tierButton.ts';

describe('purchase amount', () => {
  it('takes whole dollars from 5 to 1000', () => {
    expect(['5', '20', ' 1000 ', '999'].map(parseAmount)).toEqual([5, 20, 1000, 999]);
  });

  it('refuses everything else rather than rounding or clamping it', () => {
    for (const text of ['', ' ', '4', '0', '1001', '12.5', '20.0', '-5', '1e3', '0x10', 'twenty', '99999999'])
      expect(parseAmount(text), JSON.stringify(text)).toBeNull();
  });

  it('buys 100 credits a dollar', () => {
    expect(creditsFor(5)).toBe(500);
    expect(creditsFor(1000)).toBe(100_000);
  });
});

describe('tier buttons by tier order', () => {
  it('say Current Tier for the same tier, Upgrade Tier for a higher one, Change Tier for a lower one', () => {
    expect(tierButtonOf('BASIC', 'BASIC')).toEqual({
      label: CURRENT_TIER,
      disabled: true,
      purchasable: true,
    });
    expect(tierButtonOf('HACKER', 'BASIC')).toEqual({
      label: UPGRADE_TIER,
      disabled: true,
      purchasable: false,
    });
    expect(tierButtonOf('TEAM', 'ELITE').label).toBe(UPGRADE_TIER);
    expect(tierButtonOf('HACKER', 'ELITE').label).toBe(CHANGE_TIER);
    expect(tierButtonOf('BASIC', 'TEAM')).toEqual({ label: CHANGE_TIER, disabled: false, purchasable: true });
  });
});

describe('where a purchase goes', () => {
  const origin = 'https://grid.example';

  it("follows Stripe's hosted page and our Paddle page, made absolute", () => {
    expect(
      checkoutTargetOf({ provider: 'stripe', checkoutUrl: 'https://checkout.stripe.com/c/1' }, origin),
    ).toEqual({
      url: 'https://checkout.stripe.com/c/1',
    });
    expect(
      checkoutTargetOf({ provider: 'paddle', checkoutUrl: '/checkout/paddle?transactionId=t' }, origin),
    ).toEqual({
      url: 'https://grid.example/checkout/paddle?transactionId=t',
    });
  });

  it('never follows a script address or nothing', () => {
    expect(checkoutTargetOf({ provider: 'stripe', checkoutUrl: 'javascript:alert(1)' }, origin)).toEqual({
      error: STRIPE_FAILED,
    });
    expect(checkoutTargetOf({ provider: 'paddle', checkoutUrl: null }, origin)).toEqual({
      error: PADDLE_FAILED,
    });
    expect(checkoutTargetOf({ provider: 'PADDLE', checkoutUrl: '/x' }, origin)).toEqual({
      error: 'Unknown payment provider: PADDLE',
    });
  });
});
