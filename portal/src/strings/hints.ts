import { CREDITS_PER_USD, DEFAULT_MMR, type Tier } from '@exploit-grid/api/contracts/constants';
import { tierNames } from './plans.ts';

/**
 * Short explanations where players meet the game's words: credits, Gift, tiers, MMR, what a box costs. The
 * numbers the server configures (daily limit, minimum charge) come from it; the tier table and the credit
 * price are the shared contract's.
 */

/** The info button's accessible name: 'About Credits'. */
export const aboutLabel = (topic: string) => `About ${topic}`;

export const CREDITS_HINT = `Credits pay for your box's running time and for attacks. ${CREDITS_PER_USD} credits cost 1 USD on Plans.`;
export const GIFT_HINT =
  'Gift is free credits: the ones every new account gets, and those from redeemed gift tokens. They are spent before your bought credits.';
export const MMR_HINT = `MMR is your rating. Everyone starts at ${DEFAULT_MMR}; winning an attack or a defense raises it, losing lowers it, more so against stronger players. The leaderboard ranks operators by it.`;
export const RANK_HINT = `Your place on the leaderboard by MMR (rating). Everyone starts at ${DEFAULT_MMR}; your wins and losses move it.`;
export const TIERS_TOPIC = 'tiers';
export const TIER_HINT =
  'Your tier (Basic, Hacker, Syndicate, Team) sets what an hour of box time and an attack cost, and whether your box time is limited per day.';

/**
 * What running the box costs the player on their tier, with what the server configures when known: 'Your box
 * costs 40 credits an hour on Basic while it runs, charged by the minute, at least 5 minutes each time you
 * start it. Basic boxes run up to 60 minutes a day.'
 */
export function boxCostText(cost: {
  hourCost: number;
  tier: Tier;
  minimumMinutes: number | null;
  dailyLimitMinutes: number | null;
}): string {
  const name = tierNames[cost.tier];
  let text = `Your box costs ${cost.hourCost} credits an hour on ${name} while it runs, charged by the minute`;
  if (cost.minimumMinutes !== null)
    text += `, at least ${cost.minimumMinutes} minutes each time you start it`;
  text += '.';
  if (cost.dailyLimitMinutes !== null)
    text += ` ${name} boxes run up to ${cost.dailyLimitMinutes} minutes a day.`;
  return text;
}
