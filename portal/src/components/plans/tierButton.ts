import { PURCHASABLE_TIERS, TIER_ORDER, type Tier } from '@exploit-grid/api/contracts/constants';
import { CHANGE_TIER, CURRENT_TIER, UPGRADE_TIER } from '../../strings/plans.ts';

export type TierButton = {
  label: typeof CURRENT_TIER | typeof UPGRADE_TIER | typeof CHANGE_TIER;
  /** Only a tier that can be bought today, and not the one the player has, can be chosen. */
  disabled: boolean;
  /** Sold today (BASIC); the others are 'coming soon'. */
  purchasable: boolean;
};

/** The label of a tier's button by tier order: the same tier, a higher one (upgrade) or a lower one (change). */
export function tierButtonOf(tier: Tier, current: Tier): TierButton {
  const purchasable = isPurchasable(tier);
  if (tier === current) return { label: CURRENT_TIER, disabled: true, purchasable };
  const label = TIER_ORDER[tier] > TIER_ORDER[current] ? UPGRADE_TIER : CHANGE_TIER;
  return { label, disabled: !purchasable, purchasable };
}

export function isPurchasable(tier: Tier): boolean {
  return (PURCHASABLE_TIERS as readonly Tier[]).includes(tier);
}
