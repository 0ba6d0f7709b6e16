import { CREDITS_PER_USD, PURCHASE_MAX_USD, PURCHASE_MIN_USD } from '@exploit-grid/api/contracts/constants';

/**
 * The purchase amount the player typed, in whole dollars from 5 to 1000 (spec section 5), or null when the
 * text is not such an amount ('', '4', '12.5', '1e3', '1001' are all refused, not rounded or clamped).
 */
export function parseAmount(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d{1,7}$/.test(trimmed)) return null;
  const amount = Number(trimmed);
  return isValidAmount(amount) ? amount : null;
}

export function isValidAmount(amount: number): boolean {
  return Number.isInteger(amount) && amount >= PURCHASE_MIN_USD && amount <= PURCHASE_MAX_USD;
}

/** Credits an amount buys: 100 a dollar. */
export function creditsFor(dollars: number): number {
  return dollars * CREDITS_PER_USD;
}
