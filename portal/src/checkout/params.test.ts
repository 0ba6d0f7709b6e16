import { describe, expect, it } from 'vitest';
import { parseCheckoutParams, sameSiteUrl } from './params.ts';

const ORIGIN = 'https://grid.example';
const required = 'clientToken=t&customerEmail=a%40b.c&amount=20&transactionId=txn_1';

describe('checkout parameters', () => {
  it('defaults the environment to sandbox and the return addresses to /plans', () => {
    expect(parseCheckoutParams(new URLSearchParams(required), ORIGIN)).toEqual({
      clientToken: 't',
      priceId: null,
      transactionId: 'txn_1',
      environment: 'sandbox',
      customerEmail: 'a@b.c',
      customerId: null,
      amount: 20,
      successUrl: `${ORIGIN}/plans?success=true`,
      cancelUrl: `${ORIGIN}/plans?canceled=true`,
      sessionId: null,
    });
  });

  it('makes relative success and cancel URLs absolute', () => {
    const parsed = parseCheckoutParams(
      new URLSearchParams(`${required}&successUrl=/plans?success=true%26p=1&cancelUrl=plans`),
      ORIGIN,
    );
    expect(parsed?.successUrl).toBe(`${ORIGIN}/plans?success=true&p=1`);
    expect(parsed?.cancelUrl).toBe(`${ORIGIN}/plans`);
  });

  it('keeps only addresses on this site', () => {
    expect(sameSiteUrl('https://grid.example/x', ORIGIN)).toBe('https://grid.example/x');
    expect(sameSiteUrl('//evil.example/x', ORIGIN)).toBeNull();
    expect(sameSiteUrl('javascript:alert(1)', ORIGIN)).toBeNull();
    expect(sameSiteUrl('', ORIGIN)).toBeNull();
  });

  it('needs a positive amount', () => {
    for (const amount of ['0', '-5', 'abc', ''])
      expect(
        parseCheckoutParams(new URLSearchParams(required.replace('amount=20', `amount=${amount}`)), ORIGIN),
      ).toBeNull();
  });
});
