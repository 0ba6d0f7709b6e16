import {
  COMMERCE_MESSAGES,
  CREDITS_PER_USD,
  PURCHASE_MAX_USD,
  PURCHASE_MIN_USD,
  type Tier,
  type TierPerks,
} from '@exploit-grid/api/contracts/constants';

/** Plans and pricing texts (commerce-and-content sections 2, 4, 6, 8, 9). */
export const PLANS_TITLE = 'Plans';
export const PRICING_TITLE = 'Pricing';
export const PLANS_DESCRIPTION =
  'Exploit Grid tiers and credits: pay as you go, 1 USD buys 100 credits. Credits launch machines and pay for attacks.';
export const PLANS_INTRO =
  'Pay as you go: 1 USD buys 100 credits. Credits launch your machine and pay for attacks; your tier sets what they cost.';

// The two modes of the screen.
export const PLANS_TABS_LABEL = 'Plans';
export const TAB_OVERVIEW = 'Tier Overview';
export const TAB_PURCHASE = 'Purchase Credits';
/** The purchase form's code could not be downloaded (offline, or a new version of the portal). */
export const PURCHASE_FORM_UNAVAILABLE =
  'Could not load the purchase form. Check your connection and reload the page.';
export const LOGIN_TO_PURCHASE = 'Login to Purchase';

// Spec section 8, verbatim.
export const PURCHASE_CANCELED = COMMERCE_MESSAGES.purchaseCanceled;
export const PURCHASE_SUCCEEDED = COMMERCE_MESSAGES.purchaseSucceeded;
export const PURCHASE_FAILED = COMMERCE_MESSAGES.purchaseFailed;
export const STRIPE_FAILED = COMMERCE_MESSAGES.stripeFailed;
export const PADDLE_FAILED = COMMERCE_MESSAGES.paddleFailed;
export const unknownProvider = COMMERCE_MESSAGES.unknownProvider;
export const PAYMENTS_DISABLED = COMMERCE_MESSAGES.paymentsDisabled;
export const TIER_COMING_SOON = COMMERCE_MESSAGES.tierComingSoon;

/** Tiers as players read them: ELITE is shown as Syndicate (spec sections 1, 4). */
export const tierNames: Record<Tier, string> = {
  BASIC: 'Basic',
  HACKER: 'Hacker',
  ELITE: 'Syndicate',
  TEAM: 'Team',
};
export const supportLevels: Record<TierPerks['supportLevel'], string> = {
  community: 'Community',
  priority: 'Priority',
  direct: 'Direct',
};

// Tier overview.
export const TIER_OVERVIEW_LABEL = 'Tiers';
export const YOUR_TIER = 'Your tier';
export const AVAILABLE_NOW = 'Available now';
export const COMING_SOON = 'Coming soon';
export const PERK_MACHINE = 'Machine time';
export const PERK_ATTACK = 'Attack cost';
export const PERK_SESSION = 'Session limit';
export const PERK_SNAPSHOTS = 'Snapshot slots';
export const PERK_PERSISTENT_IP = 'Persistent IP';
export const PERK_SUPPORT = 'Support';
export const YES = 'Yes';
export const NO = 'No';
export const UNLIMITED = 'Unlimited';
/** A limited tier whose minutes the server has not told: the limit exists, its size is configured there. */
export const DAILY_LIMIT = 'Daily limit';
export const minutesPerDay = (minutes: number) => `${minutes} min/day`;
export const creditsPerHour = (credits: number) => `${credits} credits/hour`;
export const creditsEach = (credits: number) => (credits === 1 ? '1 credit' : `${credits} credits`);
/** What an hour of machine time costs in dollars: '$0.40 an hour'. */
export const dollarsPerHour = (credits: number) => `${formatUsd(credits / CREDITS_PER_USD)} an hour`;

// Tier buttons of the purchase view (spec section 2, tier order of section 4).
export const CURRENT_TIER = 'Current Tier';
export const UPGRADE_TIER = 'Upgrade Tier';
export const CHANGE_TIER = 'Change Tier';
export const SELECTED = 'Selected';
export const TIER_CHOICE_LABEL = 'Tier';

// Purchase view.
export const BALANCE_TITLE = 'Your balance';
export const CREDIT_HISTORY_LINK = 'Credit history';
export const AMOUNT_TITLE = 'Amount';
export const AMOUNT_LABEL = 'Amount (USD)';
export const AMOUNT_SLIDER_LABEL = 'Amount in dollars';
export const QUICK_PICKS_LABEL = 'Quick picks';
export const AMOUNT_HELP = `Whole dollars from ${PURCHASE_MIN_USD} to ${PURCHASE_MAX_USD}.`;
export const AMOUNT_INVALID = `Enter a whole number of dollars from ${PURCHASE_MIN_USD} to ${PURCHASE_MAX_USD}.`;
export const YOU_RECEIVE = 'You receive';
export const COST = 'Cost';
export const buyCredits = (credits: number, dollars: number) =>
  `Buy ${formatCount(credits)} credits for ${formatUsd(dollars)}`;
export const BUY_CREDITS = 'Buy credits';
export const STARTING_CHECKOUT = 'Starting checkout…';
export const NON_REFUNDABLE =
  'Credits are non-refundable here; refunds of unused credits follow the Terms of Service.';
export const LOADING_PAYMENTS = 'Loading payment options';
export const PAYMENTS_UNAVAILABLE = 'Payment options could not be loaded.';
export const RETRY = 'Retry';
export const REDEEM_INSTEAD = 'Redeem a gift token';

/** '$20.00' */
export function formatUsd(dollars: number): string {
  return `$${dollars.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** '2,000' */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}
