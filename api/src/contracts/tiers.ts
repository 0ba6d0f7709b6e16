/** The tier table (commerce-and-content spec, section on tiers). Costs in credits. */
import type { Tier } from './constants.ts';

export interface TierPerks {
  machineHourCost: number;
  attackCost: number;
  /** Minutes of box time per day; null = unlimited (the BASIC limit is configured on the server). */
  dailyBoxLimited: boolean;
  snapshotSlots: number;
  canHavePersistentIp: boolean;
  supportLevel: 'community' | 'priority' | 'direct';
}

export const TIER_PERKS: Record<Tier, TierPerks> = {
  BASIC: {
    machineHourCost: 40,
    attackCost: 5,
    dailyBoxLimited: true,
    snapshotSlots: 0,
    canHavePersistentIp: false,
    supportLevel: 'community',
  },
  HACKER: {
    machineHourCost: 60,
    attackCost: 3,
    dailyBoxLimited: false,
    snapshotSlots: 1,
    canHavePersistentIp: true,
    supportLevel: 'community',
  },
  ELITE: {
    machineHourCost: 75,
    attackCost: 1,
    dailyBoxLimited: false,
    snapshotSlots: 3,
    canHavePersistentIp: true,
    supportLevel: 'priority',
  },
  TEAM: {
    machineHourCost: 75,
    attackCost: 1,
    dailyBoxLimited: false,
    snapshotSlots: 5,
    canHavePersistentIp: true,
    supportLevel: 'direct',
  },
};

/** Tier order: basic (1) < hacker (2) < elite (3) < team (4). */
export const TIER_ORDER: Record<Tier, number> = { BASIC: 1, HACKER: 2, ELITE: 3, TEAM: 4 };
