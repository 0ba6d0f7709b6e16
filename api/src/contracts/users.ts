/** The signed-in user, stats and activity logging (core-app sections 3, 7). */
import { z } from 'zod';
import { TIERS } from './constants.ts';

export const userSchema = z
  .object({
    id: z.uuid(),
    handle: z.string(),
    email: z.string(),
    mmr: z.number().int(),
    country: z.string().nullable(),
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
    isOnline: z.boolean(),
    /** Balances in credits with 2 decimals (stored as integer hundredths). */
    credits: z.number(),
    freeCredits: z.number(),
    subscription: z.object({ tier: z.enum(TIERS) }),
  })
  .meta({ id: 'User' });
export type User = z.infer<typeof userSchema>;

export const userStatsSchema = z
  .object({
    /** Position on the leaderboard by MMR, 1 = best; null before any ranked play. */
    rank: z.number().int().nullable(),
    attacksWon: z.number().int(),
    defensesWon: z.number().int(),
  })
  .meta({ id: 'UserStats' });
export type UserStats = z.infer<typeof userStatsSchema>;

export const ACTIVITY_TYPES = [
  'LEADERBOARD_VIEW',
  'SUBSCRIPTIONS_VIEW',
  'PAYMENT_CANCELLED',
  'PROFILE_VIEW',
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];
export const activityLogRequest = z
  .strictObject({
    activityType: z.enum(ACTIVITY_TYPES, {
      error: `activityType must be one of ${ACTIVITY_TYPES.join(', ')}`,
    }),
  })
  .meta({ id: 'ActivityLogRequest' });
export type ActivityLogRequest = z.input<typeof activityLogRequest>;
