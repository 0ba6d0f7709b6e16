import { COMMERCE_MESSAGES } from '@exploit-grid/api/contracts/constants';

/** Redeem Gift texts (commerce-and-content sections 2, 4, 8). */
export const REDEEM_TITLE = 'Redeem Gift';
export const REDEEM_DESCRIPTION = 'Redeem a gift token for free credits (Gift) on Exploit Grid.';
export const REDEEM_INTRO =
  'Got a gift token? Redeem it for free credits: they show as Gift in your balance.';
export const TOKEN_LABEL = 'Gift Token';
export const TOKEN_PLACEHOLDER = 'XXXX-XXXX-XXXX';
export const REDEEM_NOW = 'Redeem Now';
export const REDEEMING = 'Redeeming…';
export const SINGLE_USE = 'Single Use';
export const SINGLE_USE_NOTE = 'Each token can be redeemed once, by one operator.';
export const KEEP_OFFLINE_TIP =
  'Keep your token offline until you redeem it: never post it in chat or share a screenshot of it. Anyone who has it can redeem it.';
export const BALANCE_TITLE = 'Your balance';

// Spec section 8, verbatim.
export const REDEEM_FAILED = COMMERCE_MESSAGES.redeemFailed;
export const redeemed = COMMERCE_MESSAGES.redeemed;
