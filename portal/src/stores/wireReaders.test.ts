import { providersResponse, subscriptionConfigSchema } from '@exploit-grid/api/contracts';
import { describe, expect, it } from 'vitest';
import { providersAnswer } from './AuthStore.ts';
import { checkoutAnswer } from './checkoutTarget.ts';
import { plansConfig } from './PlansStore.ts';

/** Reads `data` with `reader`: its value, or 'refused' when it throws. */
function read<T>(reader: { parse(data: unknown): T }, data: unknown): T | 'refused' {
  try {
    return reader.parse(data);
  } catch {
    return 'refused';
  }
}

// The public pages read these answers by hand so that their visitors download no zod: each reader must
// accept exactly what the contract's schema accepts, and give the same value.
describe('answers the public pages read without zod', () => {
  const config = {
    provider: 'stripe',
    paymentsEnabled: true,
    basicDailyLimitMinutes: 120,
    boxMinimumChargeMinutes: 5,
  };
  const configs: unknown[] = [
    config,
    { ...config, provider: 'paddle', paymentsEnabled: false },
    { ...config, extra: 'ignored' },
    { ...config, provider: 'bitcoin' },
    { ...config, paymentsEnabled: 'yes' },
    { ...config, basicDailyLimitMinutes: 0 },
    { ...config, basicDailyLimitMinutes: 1.5 },
    { ...config, basicDailyLimitMinutes: 2 ** 53 },
    { ...config, boxMinimumChargeMinutes: -5 },
    { ...config, boxMinimumChargeMinutes: '5' },
    { provider: 'stripe' },
    null,
    'stripe',
    [],
  ];

  for (const [index, data] of configs.entries())
    it(`reads GET /subscription/config as its schema does (case ${index})`, () => {
      const schema = subscriptionConfigSchema.safeParse(data);
      expect(read(plansConfig, data)).toEqual(schema.success ? schema.data : 'refused');
    });

  it('reads GET /auth/providers as its schema does, and leaves out a provider it does not know', () => {
    for (const data of [
      { providers: [] },
      { providers: ['google', 'github', 'linkedin'] },
      { providers: ['github'] },
    ])
      expect(read(providersAnswer, data)).toEqual(providersResponse.parse(data));
    expect(read(providersAnswer, { providers: ['github', 'myspace', 7] })).toEqual({ providers: ['github'] });
    for (const data of [{}, { providers: 'github' }, null, 'google'])
      expect(read(providersAnswer, data)).toBe('refused');
  });

  it('reads POST /subscription/checkout loosely: a provider is needed, URLs are strings or null', () => {
    expect(read(checkoutAnswer, { provider: 'stripe', sessionId: 'cs_1', checkoutUrl: 'https://x' })).toEqual(
      {
        provider: 'stripe',
        sessionId: 'cs_1',
        checkoutUrl: 'https://x',
      },
    );
    expect(read(checkoutAnswer, { provider: 'paddle', checkoutUrl: 7 })).toEqual({
      provider: 'paddle',
      sessionId: null,
      checkoutUrl: null,
    });
    for (const data of [{}, { provider: 3 }, null]) expect(read(checkoutAnswer, data)).toBe('refused');
  });
});
