/** The leaderboard (commerce-and-content spec: Leaderboard screen, entities, calls, constants). */
import { z } from 'zod';
import { pagingFields } from './paging.ts';

export const LEADERBOARD_PAGE_SIZE = 15;
export const LEADERBOARD_SORT_FIELDS = [
  'rank',
  'handle',
  'mmr',
  'attacksWon',
  'totalAttacks',
  'winRate',
  'defensesWon',
  'totalDefenses',
  'defenseRate',
] as const;
export type LeaderboardSortField = (typeof LEADERBOARD_SORT_FIELDS)[number];

export const leaderboardQuery = z.strictObject({
  /** Handle, case-insensitive: 1-2 characters match its start, 3 or more anywhere in it (docs/leaderboard.md). */
  search: z.string().trim().max(64, 'search must be at most 64 characters').optional().meta({
    description: 'Handle, case-insensitive: 1-2 characters match its start, 3 or more anywhere in it',
  }),
  sortBy: z
    .enum(LEADERBOARD_SORT_FIELDS, { error: `sortBy must be one of ${LEADERBOARD_SORT_FIELDS.join(', ')}` })
    .default('rank'),
  sortOrder: z.enum(['asc', 'desc'], { error: 'sortOrder must be asc or desc' }).default('asc'),
  ...pagingFields(LEADERBOARD_PAGE_SIZE),
});
export type LeaderboardQuery = z.input<typeof leaderboardQuery>;

export const leaderboardRowSchema = z
  .object({
    id: z.uuid(),
    /** Global rank by MMR, 1 = best. */
    rank: z.number().int(),
    handle: z.string(),
    mmr: z.number().int(),
    attacksWon: z.number().int(),
    totalAttacks: z.number().int(),
    /** Percent, 0 when no attacks. */
    winRate: z.number(),
    defensesWon: z.number().int(),
    totalDefenses: z.number().int(),
    /** Percent, 0 when no defenses. */
    defenseRate: z.number(),
  })
  .meta({ id: 'LeaderboardRow' });
export type LeaderboardRow = z.infer<typeof leaderboardRowSchema>;

export const leaderboardPageSchema = z
  .object({ data: z.array(leaderboardRowSchema), total: z.number().int() })
  .meta({ id: 'LeaderboardPage' });
export type LeaderboardPage = z.infer<typeof leaderboardPageSchema>;
