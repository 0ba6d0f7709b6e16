import type { LedgerReason } from '@exploit-grid/api/contracts';

/** Credit history texts: the player's ledger (issue 18, 'Where my credits went'). */
export { LEDGER_PAGE_SIZE } from '@exploit-grid/api/contracts';

export const CREDIT_HISTORY_TITLE = 'Credit History';
export const CREDIT_HISTORY_DESCRIPTION =
  'Where your credits went: every purchase, gift, box hour and attack, newest first, with the balance after it.';
export const CREDIT_HISTORY_TABLE = 'Credit history';
export const COLUMN_DATE = 'Date';
export const COLUMN_WHAT = 'What';
export const COLUMN_CHANGE = 'Change';
export const COLUMN_BALANCE = 'Balance after';
export const NO_MOVEMENTS = 'No credit movements yet.';
export const LOADING_HISTORY = 'Loading your credit history';
export const HISTORY_LOAD_FAILED = 'Failed to load credit history.';
export const HISTORY_UNAVAILABLE = 'Your credit history could not be loaded.';
export const RETRY = 'Retry';
export const PREVIOUS = 'Previous';
export const NEXT = 'Next';
export const pageOf = (page: number, pages: number) => `Page ${page} of ${pages}`;
export const BUY_CREDITS = 'Buy credits';
export const CREDITS_UNIT = 'Credits';
export const GIFT_UNIT = 'Gift';

/** A short name per reason, shown beside the server's description. */
export const reasonLabels: Record<LedgerReason, string> = {
  SIGNUP_GIFT: 'Welcome gift',
  BOX_TIME: 'Box time',
  ATTACK: 'Attack',
  PURCHASE: 'Purchase',
  GIFT_TOKEN: 'Gift token',
  ADJUSTMENT: 'Adjustment',
  REFUND: 'Refund',
  CHARGEBACK: 'Chargeback',
};

/** '+20.00' / '−1.33' (a real minus sign), 2 decimals like every balance of the portal. */
export function formatDelta(value: number): string {
  const abs = Math.abs(value).toFixed(2);
  return value < 0 ? `−${abs}` : `+${abs}`;
}
